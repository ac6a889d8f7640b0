package io.groupkeeper.examples;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One member of a group that reads a topic and writes, for each input record, one output record exactly once: the
 * adapter's transactional mode (docs/exactly-once.md). Run several; kill one with {@code kill -9} or stop it past the
 * session timeout with {@code kill -STOP}: the output, read with {@code isolation.level=read_committed}, holds every
 * input offset once.
 */
@Command(name = "transform", mixinStandardHelpOptions = true,
        description = {"Reads topic IN under coordination in the transactional mode and writes, for each input record,",
            "one record to OUT with the input's key and the value {\"topic\":\"IN\",\"partition\":P,\"offset\":O}.",
            "Outputs and input offsets commit in one Kafka transaction per input partition (one transactional",
            "producer per owned partition, transactional.id <prefix><group>/<topic>/<partition>, initialised when",
            "the partition is claimed: a former owner's open transaction is aborted and its producer fenced). Read",
            "OUT with isolation.level=read_committed: every input offset exactly once, through kill -9 and pauses",
            "past the session timeout. SIGTERM: commit and leave gracefully. Logs on stderr."})
final class TransformCommand implements Callable<Integer> {

    @Option(names = "--zk", required = true, paramLabel = "HOST:PORT", description = "ZooKeeper connect string")
    String zk;

    @Option(names = "--bootstrap", required = true, paramLabel = "HOST:PORT", description = "Kafka bootstrap servers")
    String bootstrap;

    @Option(names = "--group", required = true, description = "consumer group (also the Kafka group of the offsets)")
    String group;

    @Option(names = "--from", required = true, paramLabel = "IN", description = "the input topic")
    String from;

    @Option(names = "--to", required = true, paramLabel = "OUT", description = "the output topic")
    String to;

    @Option(names = "--namespace", defaultValue = "groupkeeper", description = "ZooKeeper root (default: ${DEFAULT-VALUE})")
    String namespace;

    @Option(names = "--start", defaultValue = "earliest",
            description = "where a partition without a committed offset starts: earliest, latest or an ISO-8601 "
                    + "instant (default: ${DEFAULT-VALUE})")
    String start;

    @Option(names = "--session-timeout-ms", defaultValue = "15000", description = "ZooKeeper session timeout "
            + "(default: ${DEFAULT-VALUE})")
    long sessionTimeoutMs;

    @Option(names = "--commit-interval-ms", defaultValue = "1000",
            description = "how often each partition's transaction commits (default: ${DEFAULT-VALUE})")
    long commitIntervalMs;

    @Option(names = "--transactional-id-prefix", defaultValue = "groupkeeper/",
            description = "prefix of the per-partition transactional.id (default: ${DEFAULT-VALUE})")
    String transactionalIdPrefix;

    @Option(names = {"-X", "--kafka-property"}, paramLabel = "KEY=VALUE",
            description = "any consumer property (producer properties among them reach the producers too); repeatable")
    Map<String, String> kafkaProperties = new HashMap<>();

    @Override
    public Integer call() {
        CountDownLatch closed = new CountDownLatch(1);
        try (GroupKeeper keeper = GroupKeeper.builder()
                .store(ZooKeeperStore.builder().connectString(zk).namespace(namespace)
                        .sessionTimeout(Duration.ofMillis(sessionTimeoutMs)).build())
                .build().start()) {
            CoordinatedConsumer<String, String> consumer = CoordinatedConsumer.<String, String>builder(keeper)
                    .group(group).topics(from)
                    .kafkaProperties(kafkaProperties)
                    .kafkaProperty("bootstrap.servers", bootstrap)
                    .kafkaProperty("isolation.level", kafkaProperties.getOrDefault("isolation.level", "read_committed"))
                    .deserializers(new StringDeserializer(), new StringDeserializer())
                    .startPosition(StartPosition.parse(start))
                    .commitInterval(Duration.ofMillis(commitIntervalMs))
                    .transactional(new StringSerializer(), new StringSerializer())
                    .transactionalIdPrefix(transactionalIdPrefix)
                    .build();
            consumer.start();
            Thread hook = new Thread(() -> {
                consumer.wakeup();
                try {
                    closed.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "transform-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            System.err.println("member " + consumer.memberId() + " of group " + group + " transforming " + from
                    + " into " + to + " (SIGTERM to leave gracefully)");
            try {
                while (true) {
                    ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
                    for (ConsumerRecord<String, String> r : records) {
                        consumer.send(new TopicPartition(r.topic(), r.partition()),
                                new ProducerRecord<>(to, r.key(), value(r)));
                    }
                }
            } catch (WakeupException e) {
                // SIGTERM: leave below
            } finally {
                consumer.close(); // commits every open transaction with its position, then leaves
                System.err.println("member " + consumer.memberId() + " left group " + group);
                closed.countDown();
            }
        }
        return 0;
    }

    /** The output value: {@code {"topic":"IN","partition":P,"offset":O}}. */
    static String value(ConsumerRecord<?, ?> r) {
        return "{\"topic\":\"" + json(r.topic()) + "\",\"partition\":" + r.partition() + ",\"offset\":" + r.offset()
                + "}";
    }

    private static String json(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
