package io.groupkeeper.examples.springswitch;

import io.groupkeeper.embedded.EmbeddedServers;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The switch from a live Spring Kafka service to the starter, measured: a producer writes numbered orders throughout;
 * a Spring Boot billing service with a {@code @KafkaListener} ({@link SpringKafkaBilling}, in a JVM of its own)
 * consumes them for a while and is stopped (SIGTERM) while the orders keep coming; the same service with the listener on
 * {@code @GroupKeeperListener} ({@link GroupKeeperBilling}) starts on the same group and consumes until it has caught
 * up. Every delivery both services saw is in their ledgers; the command counts them against the topic's log:
 * {@code redelivered} = deliveries of a record beyond its first, {@code lost} = records of the log neither service got.
 */
@Command(
        name = "switch-from-spring",
        mixinStandardHelpOptions = true,
        description = {
            "Stops a Spring Boot service's @KafkaListener while records keep coming, starts the same listener"
                    + " on groupkeeper's starter (@GroupKeeperListener) on the same group, and counts what both received"
                    + " against the topic: prints redelivered=N lost=M.",
            "With no --zk/--bootstrap it starts ZooKeeper and Kafka in this process. Exit code 0 only when both are 0."
        })
public final class SwitchFromSpringCommand implements Callable<Integer> {

    private static final Duration PHASE_TIMEOUT = Duration.ofSeconds(180);

    @Option(names = "--zk", paramLabel = "HOST:PORT", description = "ZooKeeper to use instead of an in-process one")
    String zk;

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", description = "Kafka to use instead of an in-process one")
    String bootstrap;

    @Option(names = "--topic", description = "topic, created with --partitions (default: switch-orders-<time>)")
    String topic;

    @Option(names = "--group", description = "the services' group (default: switch-billing-<time>)")
    String group;

    @Option(
            names = "--partitions",
            defaultValue = "3",
            description = "partitions of the topic (default: ${DEFAULT-VALUE})")
    int partitions;

    @Option(
            names = "--rate",
            defaultValue = "100",
            description = "records per second, produced throughout (default: ${DEFAULT-VALUE})")
    int rate;

    @Option(
            names = "--spring-ms",
            defaultValue = "5000",
            description =
                    "the Spring Kafka service runs this long after its first record, then is stopped (default: ${DEFAULT-VALUE})")
    long springMs;

    @Option(
            names = "--after-ms",
            defaultValue = "3000",
            description =
                    "production goes on this long after the groupkeeper service's first record (default: ${DEFAULT-VALUE})")
    long afterMs;

    @Option(
            names = "--service-property",
            paramLabel = "KEY=VALUE",
            description =
                    "a Spring property of both services, e.g. groupkeeper.listener.take-over-kafka-offsets=false; repeatable")
    Map<String, String> serviceProperties = new java.util.LinkedHashMap<>();

    @Option(
            names = "--work-dir",
            description = "where the ledgers and the services' logs go (default: a new temporary directory)")
    Path workDir;

    @Option(
            names = "--service-classpath",
            hidden = true,
            description = "class path of the services' JVMs (default: this JVM's)")
    String serviceClasspath;

    private final PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        if ((zk == null) != (bootstrap == null)) {
            System.err.println("error: --zk and --bootstrap go together (or give neither for in-process servers)");
            return 2;
        }
        if (partitions < 1 || rate < 1 || springMs < 0 || afterMs < 0) {
            System.err.println(
                    "error: --partitions and --rate must be positive, --spring-ms and --after-ms not negative");
            return 2;
        }
        long stamp = System.currentTimeMillis() % 1_000_000;
        topic = topic != null ? topic : "switch-orders-" + stamp;
        group = group != null ? group : "switch-billing-" + stamp;
        workDir = workDir != null ? Files.createDirectories(workDir) : Files.createTempDirectory("switch-from-spring");
        EmbeddedServers servers = null;
        if (zk == null) {
            servers = EmbeddedServers.builder().quietLogs(true).build().start();
            zk = servers.zkConnectString();
            bootstrap = servers.bootstrapServers();
            out.println("servers: in-process ZooKeeper " + zk + ", Kafka " + bootstrap);
        }
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            return run(admin) ? 0 : 1;
        } finally {
            if (servers != null) {
                servers.close();
            }
        }
    }

    private boolean run(Admin admin) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, Optional.of(partitions), Optional.empty())))
                .all()
                .get(60, TimeUnit.SECONDS);
        boolean singleBroker =
                admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size() == 1;
        out.println("topic " + topic + " (" + partitions + " partitions), group " + group + ", " + rate
                + " records/s produced throughout; ledgers and logs in " + workDir);
        Path springLedger = workDir.resolve("spring-kafka.ledger");
        Path groupkeeperLedger = workDir.resolve("groupkeeper.ledger");
        try (OrderProducer producer = new OrderProducer(bootstrap, topic, rate, singleBroker)) {
            producer.start();
            Process spring = startService("spring-kafka", springLedger);
            out.println("spring-kafka service (@KafkaListener) started, pid " + spring.pid());
            if (!await(() -> !LedgerCount.read(springLedger).isEmpty(), spring, "spring-kafka")) {
                return false;
            }
            long stopAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(springMs);
            if (!await(() -> System.nanoTime() >= stopAt, spring, "spring-kafka")) {
                return false;
            }
            stop(spring);
            out.println("spring-kafka service stopped (SIGTERM, exit " + spring.exitValue() + ") after "
                    + LedgerCount.read(springLedger).size() + " deliveries; the group's offsets in Kafka: "
                    + committed(admin));
            Process groupkeeper = startService("groupkeeper", groupkeeperLedger);
            out.println("groupkeeper service (@GroupKeeperListener, same group) started, pid " + groupkeeper.pid());
            try {
                if (!await(() -> !LedgerCount.read(groupkeeperLedger).isEmpty(), groupkeeper, "groupkeeper")) {
                    return false;
                }
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(afterMs);
                if (!await(() -> System.nanoTime() >= until, groupkeeper, "groupkeeper")) {
                    return false;
                }
                producer.close();
                out.println("producer stopped: " + producer.acknowledged() + " records acknowledged");
                Map<TopicPartition, long[]> log = logRanges(admin);
                if (!await(
                        () -> LedgerCount.covers(
                                log, LedgerCount.read(springLedger), LedgerCount.read(groupkeeperLedger)),
                        groupkeeper,
                        "groupkeeper")) {
                    out.println("the services did not receive every record within " + PHASE_TIMEOUT.toSeconds() + " s");
                }
                String takeover = takeoverLine();
                if (takeover != null) {
                    out.println("groupkeeper service: " + takeover);
                }
            } finally {
                stop(groupkeeper);
            }
            out.println("groupkeeper service stopped");
            LedgerCount.Counts counts = LedgerCount.count(
                    logRanges(admin), LedgerCount.read(springLedger), LedgerCount.read(groupkeeperLedger));
            out.println(counts.describe());
            out.println("redelivered=" + counts.redelivered() + " lost=" + counts.lost());
            return counts.redelivered() == 0 && counts.lost() == 0;
        }
    }

    private Process startService(String side, Path ledger) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                serviceClasspath != null ? serviceClasspath : System.getProperty("java.class.path"),
                ListenerService.class.getName(),
                side,
                "--app.topic=" + topic,
                "--app.group=" + group,
                "--app.ledger=" + ledger,
                "--spring.kafka.bootstrap-servers=" + bootstrap,
                "--spring.kafka.consumer.auto-offset-reset=earliest",
                "--groupkeeper.zookeeper.connect=" + zk,
                "--logging.level.io.groupkeeper.spring=INFO"));
        serviceProperties.forEach((k, v) -> cmd.add("--" + k + "=" + v));
        return new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(workDir.resolve(side + ".log").toFile())
                .start();
    }

    /** Waits for {@code done} while {@code service} runs; false (its log named) when it exits first or time is up. */
    private boolean await(BooleanSupplier done, Process service, String side) throws InterruptedException {
        long deadline = System.nanoTime() + PHASE_TIMEOUT.toNanos();
        while (!done.getAsBoolean()) {
            if (!service.isAlive()) {
                out.println("error: the " + side + " service exited (" + service.exitValue() + "); see "
                        + workDir.resolve(side + ".log"));
                return false;
            }
            if (System.nanoTime() > deadline) {
                out.println("error: the " + side + " service did not get there in " + PHASE_TIMEOUT.toSeconds()
                        + " s; see " + workDir.resolve(side + ".log"));
                return false;
            }
            TimeUnit.MILLISECONDS.sleep(100); // polling the ledger file, not synchronising threads
        }
        return true;
    }

    private static void stop(Process service) throws InterruptedException {
        service.destroy();
        if (!service.waitFor(60, TimeUnit.SECONDS)) {
            service.destroyForcibly().waitFor();
        }
    }

    private Map<Integer, Long> committed(Admin admin) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS);
        Map<Integer, Long> byPartition = new TreeMap<>();
        offsets.forEach((tp, o) -> byPartition.put(tp.partition(), o == null ? -1 : o.offset()));
        return byPartition;
    }

    private Map<TopicPartition, long[]> logRanges(Admin admin) throws Exception {
        Map<TopicPartition, OffsetSpec> earliest =
                new TreeMap<>(java.util.Comparator.comparingInt(TopicPartition::partition));
        Map<TopicPartition, OffsetSpec> latest =
                new TreeMap<>(java.util.Comparator.comparingInt(TopicPartition::partition));
        for (int p = 0; p < partitions; p++) {
            earliest.put(new TopicPartition(topic, p), OffsetSpec.earliest());
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        var starts = admin.listOffsets(earliest).all().get(30, TimeUnit.SECONDS);
        var ends = admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
        Map<TopicPartition, long[]> ranges =
                new TreeMap<>(java.util.Comparator.comparingInt(TopicPartition::partition));
        starts.forEach((tp, s) ->
                ranges.put(tp, new long[] {s.offset(), ends.get(tp).offset()}));
        return ranges;
    }

    private String takeoverLine() throws IOException {
        Path log = workDir.resolve("groupkeeper.log");
        return Files.readAllLines(log, StandardCharsets.UTF_8).stream()
                .filter(l -> l.contains("took over Kafka's"))
                .map(l -> l.substring(Math.max(0, l.indexOf("groupkeeper listener"))))
                .findFirst()
                .orElse(null);
    }
}
