package io.groupkeeper.examples;

import io.groupkeeper.embedded.EmbeddedServers;
import io.groupkeeper.examples.Deliveries.Delivery;
import io.groupkeeper.kafka.OutOfRangePolicy;
import io.groupkeeper.kafka.StartPosition;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.zookeeper.KeeperException;

/**
 * The founding story, replayed on real Kafka under ZooKeeper coordination: each step does what the story describes,
 * checks that groupkeeper's promise held, and says so in plain words. {@link #run()} is true only if every step held.
 */
final class FoundingStory {

    private static final int PARTITIONS = 3;
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final PrintStream out;
    private final String externalZk;
    private final String externalBootstrap;
    private final String namespace;

    private EmbeddedServers servers;
    private String zk;
    private String bootstrap;
    private Admin admin;
    private KafkaProducer<String, String> producer;
    private CuratorFramework zkCli;

    private String topic;
    private String billing;
    private String audit;
    private final Deliveries billingLog = new Deliveries();
    private final Deliveries auditLog = new Deliveries();
    private final Map<String, StoryConsumer> consumers = new LinkedHashMap<>();
    private final List<String> produced = new ArrayList<>();
    private int nextOrder = 1;

    private final List<String> summary = new ArrayList<>();
    private boolean allHeld = true;

    FoundingStory(PrintStream out, String zk, String bootstrap, String namespace) {
        this.out = out;
        this.externalZk = zk;
        this.externalBootstrap = bootstrap;
        this.namespace = namespace;
    }

    boolean run() {
        out.println("groupkeeper: consumer groups coordinated through ZooKeeper, over real Kafka");
        out.println("Replaying the founding story. Logs (warnings only) go to stderr.");
        out.println();
        long t0 = System.nanoTime();
        try {
            setUp();
        } catch (RuntimeException e) {
            out.println("Could not start: " + e.getMessage());
            tearDown();
            return false;
        }
        try {
            step("A topic with 3 partitions", this::topicWithThreePartitions);
            step("Group " + billing + " with 3 consumers splits the partitions", this::groupSplitsPartitions);
            step("Group " + audit + " consumes the same records independently", this::secondGroupGetsEverything);
            step("A consumer is killed; its partitions move without loss", this::crashMovesPartitionsWithoutLoss);
            step("Offsets survive a full restart of the group", this::offsetsSurviveRestart);
            step("An offset set beyond the log end is corrected by the policy", this::outOfRangeIsCorrected);
        } finally {
            tearDown();
        }
        out.println();
        out.println("Summary");
        summary.forEach(s -> out.println("  " + s));
        out.printf(
                "%s (%.1f s)%n",
                allHeld ? "Every step held." : "Some steps did NOT hold.", (System.nanoTime() - t0) / 1e9);
        out.flush();
        return allHeld;
    }

    // ------------------------------------------------------------------ set-up

    private void setUp() {
        if (externalZk == null) {
            out.print("Starting ZooKeeper and Kafka in this process ... ");
            out.flush();
            long t = System.nanoTime();
            servers = EmbeddedServers.startDefault();
            zk = servers.zkConnectString();
            bootstrap = servers.bootstrapServers();
            out.printf("ZooKeeper %s, Kafka %s (%.1f s)%n", zk, bootstrap, (System.nanoTime() - t) / 1e9);
            topic = "orders";
            billing = "billing";
            audit = "audit";
        } else {
            zk = externalZk;
            bootstrap = externalBootstrap;
            String run = Long.toString(System.currentTimeMillis() % 1_000_000, 36);
            topic = "orders-" + run;
            billing = "billing-" + run;
            audit = "audit-" + run;
            out.println(
                    "Using ZooKeeper " + zk + " and Kafka " + bootstrap + " (names of this run end in -" + run + ")");
        }
        admin = Admin.create(
                Map.of("bootstrap.servers", bootstrap, "request.timeout.ms", 15_000, "default.api.timeout.ms", 30_000));
        // On a single broker acks=1 is as durable as acks=all, and it sidesteps a broker quirk right after topic
        // creation (an appended write answered NOT_LEADER_OR_FOLLOWER wedges an idempotent producer).
        boolean singleBroker;
        try {
            singleBroker =
                    admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size() == 1;
        } catch (Exception e) {
            throw new IllegalStateException("cannot reach Kafka at " + bootstrap + ": " + e, e);
        }
        producer = new KafkaProducer<>(
                Map.of(
                        "bootstrap.servers",
                        bootstrap,
                        "acks",
                        singleBroker ? "1" : "all",
                        "enable.idempotence",
                        !singleBroker,
                        "max.in.flight.requests.per.connection",
                        1,
                        "linger.ms",
                        0,
                        "max.block.ms",
                        30_000,
                        "delivery.timeout.ms",
                        30_000,
                        "request.timeout.ms",
                        10_000),
                new StringSerializer(),
                new StringSerializer());
        zkCli = CuratorFrameworkFactory.newClient(zk, 15_000, 10_000, new ExponentialBackoffRetry(100, 3));
        zkCli.start();
        try {
            if (!zkCli.blockUntilConnected(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("cannot connect to ZooKeeper at " + zk);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private void tearDown() {
        List<StoryConsumer> all = new ArrayList<>(consumers.values());
        for (int i = all.size() - 1; i >= 0; i--) {
            quietly(all.get(i)::close);
        }
        if (producer != null) {
            quietly(() -> producer.close(Duration.ofSeconds(5)));
        }
        if (admin != null) {
            quietly(() -> admin.close(Duration.ofSeconds(5)));
        }
        if (zkCli != null) {
            quietly(zkCli::close);
        }
        if (servers != null) {
            quietly(servers::close);
        }
    }

    // ------------------------------------------------------------------ the steps

    private void topicWithThreePartitions() throws Exception {
        if (servers != null) {
            servers.kafka().createTopic(topic, PARTITIONS);
        } else {
            admin.createTopics(List.of(new NewTopic(topic, Optional.of(PARTITIONS), Optional.empty())))
                    .all()
                    .get();
        }
        awaitWritable();
        produce(30);
        say("Created topic %s with %d partitions and produced 30 orders, 10 to each partition.", topic, PARTITIONS);
        check(logEnds().values().stream().allMatch(e -> e == 10), "each partition's log ends at 10");
    }

    private void groupSplitsPartitions() throws Exception {
        for (int i = 1; i <= 3; i++) {
            startConsumer(billing, "billing-" + i, billingLog, OutOfRangePolicy.EARLIEST);
        }
        await(
                () -> consumers.values().stream()
                                .allMatch(c -> c.consumer.assignment().size() == 1)
                        && new HashSet<>(owners(billing).values()).size() == 3,
                "the three consumers to split the partitions");
        say(
                "Three consumers joined %s (start position: earliest, so a new group reads what is already there;",
                billing);
        say("the default is latest). ZooKeeper says who owns what (%s):", path(billing, "owners", null));
        owners(billing).forEach((p, m) -> say("  %s:%d -> %s", topic, p, nameOf(m)));
        await(() -> billingLog.size() >= 30, "billing to consume 30 orders");
        for (String name : List.of("billing-1", "billing-2", "billing-3")) {
            List<Delivery> got = billingLog.of(name);
            Set<Integer> parts = got.stream().map(Delivery::partition).collect(Collectors.toSet());
            say("%s consumed %d orders, all from partition %s.", name, got.size(), parts);
        }
        check(
                billingLog.distinctValues().equals(new HashSet<>(produced))
                        && billingLog.repeats().isEmpty(),
                "every order was consumed by exactly one member of " + billing);
        check(
                consumers.values().stream()
                        .allMatch(c -> c.consumer.assignment().size() == 1),
                "each consumer owns exactly one partition");
    }

    private void secondGroupGetsEverything() throws Exception {
        startConsumer(audit, "audit-1", auditLog, OutOfRangePolicy.EARLIEST);
        await(() -> auditLog.size() >= 30, "audit to consume 30 orders");
        await(
                () -> committed(billing).equals(logEnds()) && committed(audit).equals(logEnds()),
                "both groups to commit 10/10/10");
        say("audit-1, alone in group %s, consumed all %d orders too.", audit, auditLog.size());
        say(
                "Each group keeps its own offsets in ZooKeeper: %s %s, %s %s.",
                billing, committed(billing), audit, committed(audit));
        check(
                auditLog.distinctValues().equals(new HashSet<>(produced))
                        && auditLog.repeats().isEmpty(),
                "group " + audit + " got every order once");
        check(billingLog.size() == 30, "group " + billing + " got nothing twice because of " + audit);
    }

    private void crashMovesPartitionsWithoutLoss() throws Exception {
        StoryConsumer victim = consumers.get("billing-3");
        TopicPartition victimPartition = victim.consumer.assignment().iterator().next();
        int seenBefore = billingLog.of("billing-3").size();
        say("Orders keep coming (30 more, one every 40 ms). billing-3 owns %s:%d.", topic, victimPartition.partition());
        Thread more = new Thread(() -> produceSlowly(30, 40), "producer");
        more.start();
        await(() -> billingLog.of("billing-3").size() >= seenBefore + 4, "billing-3 to get some new orders");

        victim.halt();
        // read while its session still holds the partition: once it ends, the heir may commit within milliseconds
        long lastCommit = committed(billing).get(victimPartition.partition());
        victim.endSession();
        long crashedAt = System.nanoTime();
        long lastSeen = billingLog.of("billing-3").stream()
                .mapToLong(Delivery::offset)
                .max()
                .orElse(-1);
        say("billing-3 crashed: it died in the middle of a batch and its ZooKeeper session ended without a goodbye.");
        say(
                "  Its last commit for %s:%d was offset %d; it had processed up to offset %d, so %s.",
                topic,
                victimPartition.partition(),
                lastCommit,
                lastSeen,
                lastSeen < lastCommit
                        ? "nothing was uncommitted"
                        : (lastSeen == lastCommit
                                        ? "offset " + lastSeen + " was"
                                        : "offsets " + lastCommit + ".." + lastSeen + " were")
                                + " processed but not committed");
        await(
                () -> owners(billing).size() == PARTITIONS && !owners(billing).containsValue(victim.memberId()),
                "the partition to move");
        String heir = nameOf(owners(billing).get(victimPartition.partition()));
        say(
                "  %s:%d moved to %s %d ms later.",
                topic, victimPartition.partition(), heir, (System.nanoTime() - crashedAt) / 1_000_000);
        more.join();
        await(() -> billingLog.distinctValues().containsAll(produced), "billing to catch up");

        List<Delivery> repeats = billingLog.repeats();
        boolean inWindow = repeats.stream()
                .allMatch(d -> d.partition() == victimPartition.partition()
                        && d.offset() >= lastCommit
                        && d.offset() <= lastSeen);
        say(
                "All %d orders reached %s; %s",
                produced.size(),
                billing,
                repeats.isEmpty()
                        ? "none twice (billing-3 had committed everything it processed)."
                        : repeats.size()
                                + (repeats.size() == 1
                                        ? " was delivered twice, offset "
                                        : " were delivered twice, " + "offsets ")
                                + repeats.stream()
                                        .map(Delivery::offset)
                                        .sorted()
                                        .map(String::valueOf)
                                        .collect(Collectors.joining(", "))
                                + ": exactly what billing-3 processed after its last commit.");
        check(billingLog.distinctValues().containsAll(produced), "no order was lost");
        check(
                inWindow && repeats.size() == lastSeen + 1 - lastCommit,
                "repeats come only from the crashed member's uncommitted window");
    }

    private void offsetsSurviveRestart() throws Exception {
        say("billing-1 and billing-2 leave gracefully (final commit, then release).");
        for (String name : List.of("billing-1", "billing-2")) {
            consumers.get(name).leave();
        }
        Map<Integer, Long> stored = committed(billing);
        Map<Integer, Long> ends = logEnds();
        say("The group is empty; ZooKeeper still holds its offsets %s (log ends %s).", stored, ends);
        check(stored.equals(ends), "offsets stored on leave are exactly where consumption stopped");

        List<String> before = new ArrayList<>(produced);
        produce(15);
        List<String> whileDown = new ArrayList<>(produced.subList(before.size(), produced.size()));
        say("While %s is down, 15 more orders arrive.", billing);
        startConsumer(billing, "billing-4", billingLog, OutOfRangePolicy.LATEST);
        startConsumer(billing, "billing-5", billingLog, OutOfRangePolicy.LATEST);
        awaitOwners(billing, PARTITIONS);
        await(
                () -> billingLog.of("billing-4").size()
                                + billingLog.of("billing-5").size()
                        >= 15,
                "the restarted group to consume");
        List<String> got = new ArrayList<>();
        billingLog.of("billing-4").forEach(d -> got.add(d.value()));
        billingLog.of("billing-5").forEach(d -> got.add(d.value()));
        say("Two new consumers, billing-4 and billing-5, resumed at %s and consumed %d orders.", stored, got.size());
        check(
                new HashSet<>(got).equals(new HashSet<>(whileDown)) && got.size() == whileDown.size(),
                "the restarted group got exactly the 15 new orders: nothing lost, nothing old repeated");
    }

    private void outOfRangeIsCorrected() throws Exception {
        await(() -> committed(billing).equals(logEnds()), "the group to commit");
        long end = logEnds().get(0);
        String node = path(billing, "offsets", 0);
        say(
                "An operator sets the offset of %s:0 by hand in ZooKeeper, beyond the log end (%d), while %s runs:",
                topic, end, billing);
        say("  set %s 7000", node);
        zkCli.setData().forPath(node, "7000".getBytes(StandardCharsets.UTF_8));
        await(() -> committed(billing).get(0) == end, "the correction to be stored");
        say(
                "The owner adopted the edit (an operator's edit wins), found 7000 outside the log [0, %d] and applied",
                end);
        say(
                "outOfRange=latest: it continues at %d and stored %d in ZooKeeper (see the WARN on stderr).",
                end, committed(billing).get(0));
        check(committed(billing).get(0) == end, "the corrected offset is persisted");

        int before = billingLog.size();
        List<String> fresh = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            fresh.add(send(0));
        }
        await(() -> billingLog.size() >= before + 5, "the new orders on partition 0");
        List<Delivery> after = billingLog.all().subList(before, billingLog.size());
        say(
                "5 new orders on %s:0 were consumed at offsets %s.",
                topic, after.stream().map(Delivery::offset).collect(Collectors.toList()));
        check(
                after.stream().map(Delivery::value).collect(Collectors.toList()).equals(fresh)
                        && after.get(0).offset() == end,
                "consumption continued exactly at the corrected offset");
    }

    // ------------------------------------------------------------------ narration

    private interface Step {
        void run() throws Exception;
    }

    private int stepNumber;
    private boolean stepHeld;
    private boolean skipRest;

    private void step(String title, Step body) {
        stepNumber++;
        String label = stepNumber + ". " + title;
        if (skipRest) {
            summary.add("[not run]  " + label);
            allHeld = false;
            return;
        }
        out.println();
        out.println(label);
        stepHeld = true;
        try {
            body.run();
        } catch (Exception e) {
            stepHeld = false;
            skipRest = true;
            say("FAILED: %s", e.getMessage() == null ? e.toString() : e.getMessage());
        }
        allHeld &= stepHeld;
        summary.add((stepHeld ? "[held]     " : "[FAILED]   ") + label);
        out.flush();
    }

    private void say(String format, Object... args) {
        out.println("   " + String.format(format, args));
    }

    private void check(boolean held, String what) {
        say("%s %s", held ? "ok:" : "NOT HELD:", what);
        if (!held) {
            stepHeld = false;
        }
    }

    // ------------------------------------------------------------------ helpers

    private void startConsumer(String group, String name, Deliveries log, OutOfRangePolicy outOfRange) {
        consumers.put(
                name,
                StoryConsumer.start(
                        name, zk, namespace, bootstrap, group, topic, StartPosition.earliest(), outOfRange, log));
    }

    private void produce(int count) throws Exception {
        List<Future<?>> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int order = nextOrder++;
            String value = "order-" + order;
            produced.add(value);
            sent.add(producer.send(new ProducerRecord<>(topic, order % PARTITIONS, "customer-" + order % 7, value)));
        }
        for (Future<?> f : sent) {
            f.get();
        }
    }

    private void produceSlowly(int count, long intervalMs) {
        try {
            for (int i = 0; i < count; i++) {
                produce(1);
                Thread.sleep(intervalMs); // a steady stream, not a synchronisation
            }
        } catch (Exception e) {
            throw new IllegalStateException("producing failed", e);
        }
    }

    private String send(int partition) throws Exception {
        int order = nextOrder++;
        String value = "order-" + order;
        produced.add(value);
        producer.send(new ProducerRecord<>(topic, partition, "customer-" + order % 7, value))
                .get();
        return value;
    }

    /**
     * Waits until every partition's leader answers (a freshly created topic is described with leaders a moment before
     * the broker accepts writes to it; producing into that moment can wedge an idempotent producer).
     */
    private void awaitWritable() throws Exception {
        await(
                () -> {
                    try {
                        logEnds();
                        return producer.partitionsFor(topic).size() == PARTITIONS;
                    } catch (ExecutionException e) {
                        return false;
                    }
                },
                "the partitions of " + topic + " to accept writes");
    }

    private Map<Integer, Long> logEnds() throws Exception {
        Map<TopicPartition, OffsetSpec> query = new LinkedHashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            query.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<Integer, Long> ends = new TreeMap<>();
        admin.listOffsets(query).all().get().forEach((tp, info) -> ends.put(tp.partition(), info.offset()));
        return ends;
    }

    private String path(String group, String kind, Integer partition) {
        return "/" + namespace + "/groups/" + group + "/" + kind
                + (partition == null ? "" : "/" + topic + "/" + partition);
    }

    /** The group's stored offsets per partition, read from ZooKeeper as an operator would. */
    private Map<Integer, Long> committed(String group) throws Exception {
        Map<Integer, Long> out = new TreeMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            String node = path(group, "offsets", p);
            if (zkCli.checkExists().forPath(node) == null) {
                continue;
            }
            String body = new String(zkCli.getData().forPath(node), StandardCharsets.UTF_8).trim();
            Matcher m = Pattern.compile("^(\\d+)$|\"offset\"\\s*:\\s*(\\d+)").matcher(body);
            if (m.find()) {
                out.put(p, Long.parseLong(m.group(1) != null ? m.group(1) : m.group(2)));
            }
        }
        return out;
    }

    /** partition -> owning member id, from the group's ephemeral owner nodes. */
    private Map<Integer, String> owners(String group) throws Exception {
        Map<Integer, String> out = new TreeMap<>();
        String dir = path(group, "owners", null) + "/" + topic;
        if (zkCli.checkExists().forPath(dir) == null) {
            return out;
        }
        for (String child : zkCli.getChildren().forPath(dir)) {
            try {
                String body = new String(zkCli.getData().forPath(dir + "/" + child), StandardCharsets.UTF_8);
                Matcher m = Pattern.compile("\"memberId\"\\s*:\\s*\"([^\"]+)\"").matcher(body);
                if (m.find()) {
                    out.put(Integer.parseInt(child), m.group(1));
                }
            } catch (KeeperException.NoNodeException e) {
                // released between list and read
            }
        }
        return out;
    }

    private void awaitOwners(String group, int count) throws Exception {
        await(() -> owners(group).size() == count, "all " + count + " partitions of " + topic + " to be owned");
    }

    private String nameOf(String memberId) {
        return consumers.values().stream()
                .filter(c -> c.memberId().equals(memberId))
                .map(c -> c.name)
                .findFirst()
                .orElse(memberId);
    }

    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void await(Condition condition, String what) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("gave up waiting for " + what + " after " + WAIT.toSeconds() + " s");
            }
            Thread.sleep(20);
        }
    }

    private static void quietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            // shutting down
        }
    }
}
