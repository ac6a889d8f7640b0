package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.HandlerContext;
import io.groupkeeper.kafka.container.ListenerContainerBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
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
        // The producer refuses the output at once. Six records before the container starts: its first fetch holds
        // them all, so the transaction the poison output aborts began at offset 0 and each rewind goes back past 0, 1.
        String out = newTopic(1);
        runWithPoisonAt(2, out, b -> b.producerProperty("max.request.size", MAX_REQUEST));
    }

    /**
     * The broker rejects the output (larger than the output topic's {@code max.message.bytes}, within the producer's
     * {@code max.request.size}): the send fails after the handler call returned, and the record is the last one
     * fetched, so no later send of the transaction notices; the commit in the poll fails and rewinds. The failure is
     * found among the outputs tracked when the partition comes back, and counted against the record that made it.
     */
    @Test
    void anOutputTheBrokerAlwaysRejectsAfterTheCallIsDeadLetteredOnceAfterThePolicysAttempts() throws Exception {
        String out = newName("t");
        servers.kafka().createTopic(out, 1, Map.of("max.message.bytes", Integer.toString(MAX_REQUEST)));
        awaitWritable(out, 1);
        runWithPoisonAt(5, out, b -> {});
    }

    /**
     * Six records, one transactional container (3 attempts, then dead-letter) whose handler sends one output per
     * record to {@code out}, ten times {@link #MAX_REQUEST} at {@code poison}: the partition goes past it, the handler
     * is called 3 times there, its one dead letter is visible to read_committed, and every other record's output once.
     */
    private void runWithPoisonAt(long poison, String out, Consumer<ListenerContainerBuilder<String, String>> options)
            throws Exception {
        String in = newTopic(1);
        String group = newName("g");
        produce(in, 1, 6);
        Map<Long, AtomicInteger> calls = new ConcurrentHashMap<>();
        ListenerContainerBuilder<String, String> b = container(newKeeper(), group, in)
                .transactional(new StringSerializer(), new StringSerializer())
                .errorPolicy(ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(3, Backoff.fixed(Duration.ofMillis(50)))
                                .thenDeadLetter())
                        .build())
                .recordHandler(r -> {
                    calls.computeIfAbsent(r.offset(), o -> new AtomicInteger()).incrementAndGet();
                    String value = r.offset() == poison ? "x".repeat(10 * MAX_REQUEST) : TransactionalIT.json(r);
                    HandlerContext.<String, String>sender().send(out, r.key(), value);
                });
        options.accept(b);
        started(b.build());

        // Kafka's transactional offset passes the poison record: the partition did not loop
        await().atMost(WAIT)
                .untilAsserted(() ->
                        assertThat(TransactionalIT.kafkaOffset(group, in, 0)).hasValue(6));
        assertThat(calls.get(poison)).as("calls at the poison record").hasValue(3);

        // the other records' outputs committed once; nothing of the poison's
        List<String> others = new ArrayList<>(TransactionalIT.inputs(1, 6));
        others.remove("0/" + poison);
        Map<String, Integer> seen = TransactionalIT.readCommitted(out, 5);
        assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(others);
        assertThat(seen).allSatisfy((k, n) -> assertThat(n).as(k).isEqualTo(1));

        // one dead letter, visible to read_committed, after the policy's 3 attempts, naming the rejection
        List<ConsumerRecord<String, String>> dead = readCommittedAll(in + "-dlt");
        assertThat(dead).hasSize(1);
        assertThat(header(dead.get(0), "groupkeeper.dlt.original.offset")).isEqualTo(Long.toString(poison));
        assertThat(header(dead.get(0), "groupkeeper.dlt.attempts")).isEqualTo("3");
        assertThat(header(dead.get(0), "groupkeeper.dlt.exception.class"))
                .isEqualTo(RecordTooLargeException.class.getName());
        assertThat(calls.get(poison))
                .as("calls at the poison record, once everything is committed")
                .hasValue(3);
    }

    /** Every record of partition 0 of {@code topic} a read_committed reader sees up to the last stable offset. */
    static List<ConsumerRecord<String, String>> readCommittedAll(String topic) {
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(
                Map.of("bootstrap.servers", servers.bootstrapServers(), "isolation.level", "read_committed"),
                new StringDeserializer(),
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
