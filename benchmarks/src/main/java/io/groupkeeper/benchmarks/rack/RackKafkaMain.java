package io.groupkeeper.benchmarks.rack;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.benchmarks.support.Machine;
import io.groupkeeper.embedded.EmbeddedZooKeeper;
import io.groupkeeper.embedded.ThreeRackKafka;
import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The same-rack share on a real three-broker KRaft cluster ({@link ThreeRackKafka}: one broker per rack with
 * {@code broker.rack}) with six {@code CoordinatedConsumer}s, two per rack, joining one at a time: once with
 * {@code client.rack} set (rack-aware) and once without (rack-blind), per topic layout. The share counts, for each
 * member's deployed rack, the partitions it owns that have a replica there (racks read back from the brokers).
 *
 * <pre>
 * java -Xms1g -Xmx1g -cp benchmarks/target/benchmarks.jar io.groupkeeper.benchmarks.rack.RackKafkaMain
 * </pre>
 */
public final class RackKafkaMain {

    private static final int MEMBERS = 6;
    private static final int PARTITIONS = 24;

    private RackKafkaMain() {}

    public static void main(String[] args) throws Exception {
        System.out.println("machine: " + Machine.describe());
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().build().start();
                ThreeRackKafka kafka = ThreeRackKafka.start();
                Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            System.out.println("3 brokers up: " + kafka.bootstrapServers() + " racks az-a, az-b, az-c");
            Map<String, Map<Integer, List<Integer>>> layouts = new LinkedHashMap<>();
            Map<Integer, List<Integer>> roundRobin = new HashMap<>();
            Map<Integer, List<Integer>> halfOnA = new HashMap<>();
            Map<Integer, List<Integer>> rf2 = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                roundRobin.put(p, List.of(p % 3 + 1));
                halfOnA.put(p, List.of(p % 2 == 0 ? 1 : p % 3 + 1));
                int leader = p % 2 == 0 ? 1 : p % 3 + 1;
                rf2.put(p, List.of(leader, leader % 3 + 1));
            }
            layouts.put("rf1-round-robin", roundRobin);
            layouts.put("rf1-half-on-az-a", halfOnA);
            layouts.put("rf2-half-led-by-az-a", rf2);
            for (Map.Entry<String, Map<Integer, List<Integer>>> l : layouts.entrySet()) {
                admin.createTopics(List.of(new NewTopic(l.getKey(), l.getValue())))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            try (GroupKeeper keeper = GroupKeeper.builder()
                    .store(ZooKeeperStore.builder()
                            .connectString(zk.connectString())
                            .build())
                    .build()
                    .start()) {
                System.out.printf("%-22s %-6s %s%n", "topic", "racks", "same-rack share after each join (local/24)");
                for (String topic : layouts.keySet()) {
                    Map<TopicPartition, Set<String>> racks = racks(admin, topic);
                    for (boolean aware : new boolean[] {false, true}) {
                        List<String> shares = run(keeper, kafka.bootstrapServers(), topic, racks, aware);
                        System.out.printf(
                                "%-22s %-6s %s%n", topic, aware ? "aware" : "blind", String.join("  ", shares));
                    }
                }
            }
        }
    }

    private static Map<TopicPartition, Set<String>> racks(Admin admin, String topic) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(topic))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get(topic);
        Map<TopicPartition, Set<String>> racks = new HashMap<>();
        for (TopicPartitionInfo info : d.partitions()) {
            Set<String> set = new HashSet<>();
            for (Node n : info.replicas()) {
                set.add(n.rack());
            }
            racks.put(new TopicPartition(topic, info.partition()), set);
        }
        return racks;
    }

    /** One group of six members joining one at a time; the share after each join once the group is balanced. */
    private static List<String> run(
            GroupKeeper keeper, String bootstrap, String topic, Map<TopicPartition, Set<String>> racks, boolean aware)
            throws Exception {
        String group = topic + (aware ? "-aware" : "-blind");
        AtomicBoolean stop = new AtomicBoolean();
        List<Member> members = new ArrayList<>();
        List<String> shares = new ArrayList<>();
        try {
            for (int i = 0; i < MEMBERS; i++) {
                Member m = new Member(keeper, bootstrap, topic, group, ThreeRackKafka.RACKS.get(i % 3), aware, stop);
                members.add(m);
                m.started.await(60, TimeUnit.SECONDS);
                awaitBalanced(members);
                int local = 0;
                for (Member x : members) {
                    for (TopicPartition tp : x.assignment()) {
                        if (racks.get(tp).contains(x.rack)) {
                            local++;
                        }
                    }
                }
                shares.add(String.format("%d:%.1f%%(%d)", i + 1, 100.0 * local / PARTITIONS, local));
            }
        } finally {
            stop.set(true);
            for (Member m : members) {
                m.thread.join(30_000);
            }
        }
        return shares;
    }

    private static void awaitBalanced(List<Member> members) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int stableSince = 0;
        while (System.nanoTime() < deadline) {
            int total = 0;
            int min = Integer.MAX_VALUE;
            int max = 0;
            Set<TopicPartition> all = new HashSet<>();
            for (Member m : members) {
                Set<TopicPartition> a = m.assignment();
                total += a.size();
                all.addAll(a);
                min = Math.min(min, a.size());
                max = Math.max(max, a.size());
            }
            boolean balanced = total == PARTITIONS && all.size() == PARTITIONS && max - min <= 1;
            stableSince = balanced ? stableSince + 1 : 0;
            if (stableSince >= 10) { // ten checks in a row, 50 ms apart: the handoffs have settled
                return;
            }
            members.get(0).pollTick.await(50, TimeUnit.MILLISECONDS);
        }
        throw new IllegalStateException("group not balanced within 60 s");
    }

    /** A consumer on its own polling thread. */
    private static final class Member {
        final String rack;
        final Thread thread;
        final CountDownLatch started = new CountDownLatch(1);
        /** Never counted down: a timed wait on it paces the balance check without a sleep. */
        final CountDownLatch pollTick = new CountDownLatch(1);

        volatile Set<TopicPartition> assignment = Set.of();

        Member(
                GroupKeeper keeper,
                String bootstrap,
                String topic,
                String group,
                String rack,
                boolean aware,
                AtomicBoolean stop) {
            this.rack = rack;
            this.thread = new Thread(
                    () -> {
                        CoordinatedConsumer.Builder<String, String> b = CoordinatedConsumer.<String, String>builder(
                                        keeper)
                                .group(group)
                                .topics(topic)
                                .kafkaProperty("bootstrap.servers", bootstrap)
                                .deserializers(new StringDeserializer(), new StringDeserializer());
                        Optional.of(rack).filter(r -> aware).ifPresent(r -> b.kafkaProperty("client.rack", r));
                        try (CoordinatedConsumer<String, String> c = b.build().start()) {
                            started.countDown();
                            while (!stop.get()) {
                                c.poll(Duration.ofMillis(20));
                                assignment = Set.copyOf(c.assignment());
                            }
                        }
                    },
                    "member-" + group + "-" + rack);
            thread.start();
        }

        Set<TopicPartition> assignment() {
            return assignment;
        }
    }
}
