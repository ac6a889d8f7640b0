package io.groupkeeper.examples;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.StartPosition;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * One member of a group that reads a topic and writes, for each input record, one output record exactly once: the
 * adapter's transactional mode (docs/exactly-once.md). Run several; kill one with {@code kill -9} or stop it past the
 * session timeout with {@code kill -STOP}: the output, read with {@code isolation.level=read_committed}, holds every
 * input offset once.
 */
@Command(
        name = "transform",
        mixinStandardHelpOptions = true,
        description = {
            "Reads topic IN under coordination in the transactional mode and writes, for each input record,",
            "one record to OUT with the input's key and the value {\"topic\":\"IN\",\"partition\":P,\"offset\":O}.",
            "Outputs and input offsets commit in one Kafka transaction per input partition (one transactional",
            "producer per owned partition, transactional.id <prefix><group>/<topic>/<partition>, initialised when",
            "the partition is claimed: a former owner's open transaction is aborted and its producer fenced). Read",
            "OUT with isolation.level=read_committed: every input offset exactly once, through kill -9 and pauses",
            "past the session timeout. --group is also the Kafka group the input offsets commit under.",
            "SIGTERM: commit and leave gracefully. Logs on stderr."
        })
final class TransformCommand implements Callable<Integer> {

    @Mixin
    MemberOptions member;

    @Option(names = "--from", required = true, paramLabel = "IN", description = "the input topic")
    String from;

    @Option(names = "--to", required = true, paramLabel = "OUT", description = "the output topic")
    String to;

    @Option(
            names = "--start",
            defaultValue = "earliest",
            description = "where a partition without a committed offset starts: earliest, latest or an ISO-8601 "
                    + "instant (default: ${DEFAULT-VALUE})")
    String start;

    @Option(
            names = "--commit-interval-ms",
            defaultValue = "1000",
            description = "how often each partition's transaction commits (default: ${DEFAULT-VALUE})")
    long commitIntervalMs;

    @Option(
            names = "--transactional-id-prefix",
            defaultValue = "groupkeeper/",
            description = "prefix of the per-partition transactional.id (default: ${DEFAULT-VALUE})")
    String transactionalIdPrefix;

    @Override
    public Integer call() {
        try (GroupKeeper keeper = member.startKeeper()) {
            CoordinatedConsumer<String, String> consumer = CoordinatedConsumer.<String, String>builder(keeper)
                    .group(member.group)
                    .topics(from)
                    .kafkaProperties(member.kafkaProperties)
                    .kafkaProperty("bootstrap.servers", member.bootstrap)
                    .kafkaProperty(
                            "isolation.level", member.kafkaProperties.getOrDefault("isolation.level", "read_committed"))
                    .deserializers(new StringDeserializer(), new StringDeserializer())
                    .startPosition(StartPosition.parse(start))
                    .commitInterval(Duration.ofMillis(commitIntervalMs))
                    .transactional(new StringSerializer(), new StringSerializer())
                    .transactionalIdPrefix(transactionalIdPrefix)
                    .build();
            consumer.start();
            GracefulLeave leave = GracefulLeave.onShutdown(consumer, "transform-shutdown");
            System.err.println("member " + consumer.memberId() + " of group " + member.group + " transforming " + from
                    + " into " + to + " (SIGTERM to leave gracefully)");
            try {
                while (true) {
                    ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
                    for (ConsumerRecord<String, String> r : records) {
                        consumer.send(
                                new TopicPartition(r.topic(), r.partition()),
                                new ProducerRecord<>(to, r.key(), value(r)));
                    }
                }
            } catch (WakeupException e) {
                // SIGTERM: leave below
            } finally {
                consumer.close(); // commits every open transaction with its position, then leaves
                System.err.println("member " + consumer.memberId() + " left group " + member.group);
                leave.left();
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
