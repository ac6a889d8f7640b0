package io.groupkeeper.examples;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.OffsetOutOfRangePolicyException;
import io.groupkeeper.kafka.OutOfRangePolicy;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.io.PrintStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One coordinated consumer, as its own process: prints one JSON line per record on stdout (logs go to stderr) and on
 * SIGTERM / Ctrl-C leaves the group gracefully, committing its final offsets. Start several by hand and watch the
 * partitions split, move and resume.
 */
@Command(name = "consume", mixinStandardHelpOptions = true,
        description = {"Consumes as one member of a ZooKeeper-coordinated group; one JSON line per record:",
            "{\"group\",\"member\",\"topic\",\"partition\",\"offset\",\"key\",\"value\"}. SIGTERM: final commit, leave."})
final class ConsumeCommand implements Callable<Integer> {

    @Option(names = "--zk", required = true, paramLabel = "HOST:PORT", description = "ZooKeeper connect string")
    String zk;

    @Option(names = "--bootstrap", required = true, paramLabel = "HOST:PORT", description = "Kafka bootstrap servers")
    String bootstrap;

    @Option(names = "--group", required = true, description = "consumer group")
    String group;

    @Option(names = "--topic", required = true, split = ",", description = "topic(s), comma separated")
    List<String> topics;

    @Option(names = "--namespace", defaultValue = "groupkeeper", description = "ZooKeeper root (default: ${DEFAULT-VALUE})")
    String namespace;

    @Option(names = "--start", defaultValue = "latest",
            description = "where partitions without a committed offset start: earliest, latest or an ISO-8601 instant "
                    + "(default: ${DEFAULT-VALUE})")
    String start;

    @Option(names = "--out-of-range", defaultValue = "earliest",
            description = "committed offset outside the log: earliest, latest or fail (default: ${DEFAULT-VALUE})")
    String outOfRange;

    @Option(names = "--instance-id", description = "static member id (comes back to its partitions after a restart)")
    String instanceId;

    @Option(names = "--commit-interval-ms", defaultValue = "1000", description = "default: ${DEFAULT-VALUE}")
    long commitIntervalMs;

    @Option(names = "--max-records", defaultValue = "-1", description = "stop (gracefully) after this many records")
    long maxRecords;

    @Option(names = {"-X", "--kafka-property"}, paramLabel = "KEY=VALUE",
            description = "any consumer property (security, SASL/SSL, fetch sizes ...); repeatable")
    Map<String, String> kafkaProperties = new HashMap<>();

    @Override
    public Integer call() {
        PrintStream out = System.out;
        ObjectMapper json = new ObjectMapper();
        CountDownLatch closed = new CountDownLatch(1);
        GroupKeeper keeper;
        CoordinatedConsumer<String, String> consumer;
        try {
            keeper = GroupKeeper.builder()
                    .store(ZooKeeperStore.builder().connectString(zk).namespace(namespace).build())
                    .build().start();
        } catch (RuntimeException e) {
            System.err.println("error: " + e.getMessage());
            return 1;
        }
        try {
            CoordinatedConsumer.Builder<String, String> b = CoordinatedConsumer.<String, String>builder(keeper)
                    .group(group).topics(topics)
                    .kafkaProperties(kafkaProperties)
                    .kafkaProperty("bootstrap.servers", bootstrap)
                    .deserializers(new StringDeserializer(), new StringDeserializer())
                    .startPosition(StartPosition.parse(start))
                    .outOfRange(OutOfRangePolicy.parse(outOfRange))
                    .commitInterval(Duration.ofMillis(commitIntervalMs));
            if (instanceId != null) {
                b.instanceId(instanceId);
            }
            consumer = b.build().start();
        } catch (RuntimeException e) {
            System.err.println("error: " + e.getMessage());
            keeper.close();
            return 1;
        }
        CoordinatedConsumer<String, String> c = consumer;
        Thread hook = new Thread(() -> {
            c.wakeup();
            try {
                closed.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "consume-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        System.err.println("member " + consumer.memberId() + " of group " + group + " consuming " + topics
                + " (Ctrl-C or SIGTERM to leave gracefully)");
        long count = 0;
        try {
            while (maxRecords < 0 || count < maxRecords) {
                try {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                        ObjectNode line = json.createObjectNode()
                                .put("group", group).put("member", consumer.memberId())
                                .put("topic", r.topic()).put("partition", r.partition()).put("offset", r.offset())
                                .put("key", r.key()).put("value", r.value());
                        out.println(line);
                        count++;
                    }
                    out.flush();
                } catch (OffsetOutOfRangePolicyException e) {
                    System.err.println("error: " + e.getMessage());
                }
            }
        } catch (WakeupException e) {
            // SIGTERM / Ctrl-C: leave gracefully below
        } finally {
            out.flush();
            consumer.close();
            keeper.close();
            System.err.println("member " + consumer.memberId() + " left group " + group + " after " + count
                    + " records; final offsets committed");
            closed.countDown();
        }
        if (maxRecords >= 0) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // already shutting down
            }
        }
        return 0;
    }
}
