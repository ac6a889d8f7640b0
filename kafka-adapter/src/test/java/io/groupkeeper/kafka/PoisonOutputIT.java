package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.HandlerContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The transactional container with an output the producer always rejects (larger than {@code max.request.size}): the
 * rejection aborts the input partition's transaction and rewinds it to where that transaction began, records before the
 * poison one included. The poison record's attempts must survive those rewinds, so it ends in one dead letter after the
 * policy's attempts instead of making its partition repeat forever.
 */
class PoisonOutputIT extends ContainerTestSupport {

    /** Outputs up to this size pass; the poison record's output is ten times larger. */
    private static final int MAX_REQUEST = 16_384;

    @Test
    void anAlwaysRejectedOutputIsDeadLetteredOnceAfterThePolicysAttemptsAndThePartitionGoesOn() throws Exception {
        String in = newTopic(1);
        String out = newTopic(1);
        String dlt = in + "-dlt";
        String group = newName("g");
        // Before the container starts: its first fetch holds all six, so the transaction the poison output aborts
        // began at offset 0 and the rewind goes back past offsets 0 and 1.
        produce(in, 1, 6);
        Map<Long, AtomicInteger> calls = new ConcurrentHashMap<>();
        started(container(newKeeper(), group, in)
                .transactional(new StringSerializer(), new StringSerializer())
                .producerProperty("max.request.size", MAX_REQUEST)
                .errorPolicy(ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(3, Backoff.fixed(Duration.ofMillis(50))).thenDeadLetter()).build())
                .recordHandler(r -> {
                    calls.computeIfAbsent(r.offset(), o -> new AtomicInteger()).incrementAndGet();
                    String value = r.offset() == 2 ? "x".repeat(10 * MAX_REQUEST) : TransactionalIT.json(r);
                    HandlerContext.<String, String>sender().send(out, r.key(), value);
                }).build());

        // Kafka's transactional offset passes the poison record: the partition did not loop
        await().atMost(WAIT).untilAsserted(() -> assertThat(TransactionalIT.kafkaOffset(group, in, 0)).hasValue(6));
        assertThat(calls.get(2L)).as("calls at the poison record").hasValue(3);

        // the records after it were processed and their outputs committed once; nothing of the poison's
        Map<String, Integer> seen = TransactionalIT.readCommitted(out, 5);
        assertThat(seen).containsOnlyKeys("0/0", "0/1", "0/3", "0/4", "0/5")
                .allSatisfy((k, n) -> assertThat(n).as(k).isEqualTo(1));

        // one dead letter, visible to read_committed, after the policy's 3 attempts, naming the producer's rejection
        List<ConsumerRecord<String, String>> dead = readCommittedAll(dlt);
        assertThat(dead).hasSize(1);
        assertThat(header(dead.get(0), "groupkeeper.dlt.original.offset")).isEqualTo("2");
        assertThat(header(dead.get(0), "groupkeeper.dlt.attempts")).isEqualTo("3");
        assertThat(header(dead.get(0), "groupkeeper.dlt.exception.class"))
                .isEqualTo(RecordTooLargeException.class.getName());
        assertThat(calls.get(2L)).as("calls at the poison record, once everything is committed").hasValue(3);
    }

    /**
     * The broker rejects the output (larger than the output topic's {@code max.message.bytes}, within the producer's
     * {@code max.request.size}): the send fails after the handler call returned, and the record is the last one
     * fetched, so no later send of the transaction notices; the commit in the poll fails and rewinds. The failure is
     * found among the outputs tracked when the partition comes back, and counted against the record that made it.
     */
    @Test
    void anOutputTheBrokerAlwaysRejectsAfterTheCallIsDeadLetteredOnceAfterThePolicysAttempts() throws Exception {
        String in = newTopic(1);
        String out = newName("t");
        servers.kafka().createTopic(out, 1, Map.of("max.message.bytes", Integer.toString(MAX_REQUEST)));
        awaitWritable(out, 1);
        String group = newName("g");
        produce(in, 1, 6);
        Map<Long, AtomicInteger> calls = new ConcurrentHashMap<>();
        started(container(newKeeper(), group, in)
                .transactional(new StringSerializer(), new StringSerializer())
                .errorPolicy(ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(3, Backoff.fixed(Duration.ofMillis(50))).thenDeadLetter()).build())
                .recordHandler(r -> {
                    calls.computeIfAbsent(r.offset(), o -> new AtomicInteger()).incrementAndGet();
                    String value = r.offset() == 5 ? "x".repeat(10 * MAX_REQUEST) : TransactionalIT.json(r);
                    HandlerContext.<String, String>sender().send(out, r.key(), value);
                }).build());

        await().atMost(WAIT).untilAsserted(() -> assertThat(TransactionalIT.kafkaOffset(group, in, 0)).hasValue(6));
        assertThat(calls.get(5L)).as("calls at the poison record").hasValue(3);
        Map<String, Integer> seen = TransactionalIT.readCommitted(out, 5);
        assertThat(seen).containsOnlyKeys("0/0", "0/1", "0/2", "0/3", "0/4")
                .allSatisfy((k, n) -> assertThat(n).as(k).isEqualTo(1));
        List<ConsumerRecord<String, String>> dead = readCommittedAll(in + "-dlt");
        assertThat(dead).hasSize(1);
        assertThat(header(dead.get(0), "groupkeeper.dlt.original.offset")).isEqualTo("5");
        assertThat(header(dead.get(0), "groupkeeper.dlt.attempts")).isEqualTo("3");
        assertThat(header(dead.get(0), "groupkeeper.dlt.exception.class"))
                .isEqualTo(RecordTooLargeException.class.getName());
    }

    /** Every record of partition 0 of {@code topic} a read_committed reader sees up to the last stable offset. */
    static List<ConsumerRecord<String, String>> readCommittedAll(String topic) {
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(Map.of("bootstrap.servers",
                servers.bootstrapServers(), "isolation.level", "read_committed"), new StringDeserializer(),
                new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            reader.assign(List.of(tp));
            reader.seekToBeginning(List.of(tp));
            long end = reader.endOffsets(List.of(tp)).get(tp); // (the last stable offset, read_committed)
            await().atMost(WAIT).until(() -> {
                reader.poll(Duration.ofMillis(100)).forEach(out::add);
                return reader.position(tp) >= end;
            });
        }
        return out;
    }
}
