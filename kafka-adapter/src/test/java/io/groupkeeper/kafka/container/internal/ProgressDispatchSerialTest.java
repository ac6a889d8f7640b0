package io.groupkeeper.kafka.container.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.BatchFailedException;
import io.groupkeeper.kafka.container.BatchHandler;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.HandlerContext;
import io.groupkeeper.kafka.container.Ordering;
import io.groupkeeper.kafka.container.RecordHandler;
import io.groupkeeper.kafka.container.Recovery;
import io.groupkeeper.kafka.container.internal.progress.OffsetProgress;
import io.groupkeeper.kafka.container.internal.progress.ProgressLimits;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The batch handler and the transactional mode on the per-partition progress ({@link ProgressDispatch} with its
 * {@link SerialCalls}), without a broker: what a batch is, how {@code BatchFailedException} and the error policy move
 * the progress, how the transactional mode hands back what is not done before a poll, and how an aborted transaction
 * lets the progress go while the attempts go on counting.
 */
class ProgressDispatchSerialTest {

    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);
    private static final Predicate<TopicPartition> NONE_HELD = tp -> false;

    private final AtomicLong clock = new AtomicLong();
    private final Recorded control = new Recorded();

    @AfterEach
    void leave() {
        CurrentRecord.leave();
    }

    // ------------------------------------------------------------------ batches

    @Test
    void aBatchIsThePartitionsRunnableRecordsInOneCallAndItsLowWaterMarkIsCommitted() throws Exception {
        List<List<Long>> calls = new ArrayList<>();
        ProgressDispatch<String, String> d =
                batches(records -> calls.add(offsets(records)), ErrorPolicy.defaults(), new StringDeserializer());

        d.fetched(records(P0, 0, "a", "b", "c"));
        d.fetched(records(P0, 3, "d", "e"));
        d.pump(NONE_HELD);

        assertThat(calls).containsExactly(List.of(0L, 1L, 2L, 3L, 4L));
        assertThat(control.commits.get(P0)).isEqualTo(5);
        assertThat(control.outcomes).containsEntry(0L, "handled");
    }

    @Test
    void aBatchFailedExceptionCompletesTheRecordsBeforeTheOneNamedAndTheRetryStartsThereWhenDue() throws Exception {
        List<List<Long>> calls = new ArrayList<>();
        ProgressDispatch<String, String> d = batches(
                records -> {
                    calls.add(offsets(records));
                    if (calls.size() == 1) {
                        throw new BatchFailedException(2, new IllegalStateException("poison at index 2"));
                    }
                },
                ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(3, Backoff.fixed(Duration.ofSeconds(1)))
                                .thenSkip())
                        .build(),
                new StringDeserializer());

        d.fetched(records(P0, 0, "a", "b", "c", "d"));
        d.pump(NONE_HELD);

        assertThat(calls).containsExactly(List.of(0L, 1L, 2L, 3L));
        assertThat(control.commits.get(P0))
                .as("the records before the one named are done")
                .isEqualTo(2);
        assertThat(d.pauses()).as("not fetched while it waits for its retry").contains(P0);
        assertThat(d.enterPoll(Duration.ofSeconds(5), NONE_HELD))
                .as("the poll ends when the retry is due")
                .isLessThanOrEqualTo(Duration.ofSeconds(1));
        d.leftPoll();

        d.pump(NONE_HELD); // not due yet
        assertThat(calls).hasSize(1);

        clock.addAndGet(Duration.ofSeconds(1).toNanos());
        d.pump(NONE_HELD);

        assertThat(calls).containsExactly(List.of(0L, 1L, 2L, 3L), List.of(2L, 3L));
        assertThat(control.commits.get(P0)).isEqualTo(4);
        assertThat(d.pauses()).doesNotContain(P0);
    }

    @Test
    void aRetryThatComesDueWhileAnotherPartitionRunsWaitsForTheNextRoundAfterAPoll() throws Exception {
        List<String> calls = new ArrayList<>();
        ProgressDispatch<String, String> d = batches(
                records -> {
                    ConsumerRecord<String, String> first = records.get(0);
                    calls.add(first.partition() + "@" + first.offset());
                    if (first.partition() == 0 && calls.size() == 1) {
                        throw new IllegalStateException("down");
                    }
                    if (first.partition() == 1) {
                        clock.addAndGet(Duration.ofSeconds(2).toNanos()); // a long call
                    }
                },
                ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(3, Backoff.fixed(Duration.ofSeconds(1)))
                                .thenSkip())
                        .build(),
                new StringDeserializer());

        d.fetched(records(P0, 0, "a"));
        d.pump(NONE_HELD); // fails; its retry is due in a second
        d.fetched(records(P1, 0, "b"));
        d.pump(NONE_HELD); // P1's call takes two: P0's retry comes due meanwhile

        assertThat(calls)
                .as("not run in the round it came due in: a poll first serves what changed (a partition lost)")
                .containsExactly("0@0", "1@0");

        d.pump(NONE_HELD);
        assertThat(calls).containsExactly("0@0", "1@0", "0@0");
        assertThat(control.commits.get(P0)).isEqualTo(1);
    }

    @Test
    void onTheLastAttemptOnlyTheRecordNamedIsRecoveredAndTheRestRunAsTheNextBatch() throws Exception {
        List<List<Long>> calls = new ArrayList<>();
        ProgressDispatch<String, String> d = batches(
                records -> {
                    calls.add(offsets(records));
                    for (int i = 0; i < records.size(); i++) {
                        if (records.get(i).value().equals("vpoison")) {
                            throw new BatchFailedException(i, new IllegalStateException("poison"));
                        }
                    }
                },
                ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(2, Backoff.none()).thenSkip())
                        .build(),
                new StringDeserializer());

        d.fetched(records(P0, 0, "a", "poison", "c"));
        d.pump(NONE_HELD);

        assertThat(calls)
                .as("first attempt; the record named alone again (its second); then the rest")
                .containsExactly(List.of(0L, 1L, 2L), List.of(1L, 2L), List.of(2L));
        assertThat(control.outcomes).containsEntry(1L, "java.lang.IllegalStateException: poison");
        assertThat(control.commits.get(P0)).isEqualTo(3);
    }

    @Test
    void aRecordThatDoesNotDeserializeEndsTheBatchBeforeItAndIsRecoveredAlone() throws Exception {
        List<List<Long>> calls = new ArrayList<>();
        ProgressDispatch<String, String> d = batches(
                records -> calls.add(offsets(records)),
                ErrorPolicy.builder().deserializationFailure(Recovery.SKIP).build(),
                new FailsOn("bad"));

        d.fetched(records(P0, 0, "a", "b", "bad", "d"));
        d.pump(NONE_HELD);

        assertThat(calls).containsExactly(List.of(0L, 1L), List.of(3L));
        assertThat(control.outcomes).containsKey(2L);
        assertThat(control.outcomes.get(2L)).contains("does not deserialize here");
        assertThat(control.commits.get(P0)).isEqualTo(4);
    }

    @Test
    void aStopPartitionHoldsTheBatchAtItsFirstRecordUntilResumed() throws Exception {
        List<List<Long>> calls = new ArrayList<>();
        ProgressDispatch<String, String> d = batches(
                records -> {
                    calls.add(offsets(records));
                    if (calls.size() == 1) {
                        throw new IllegalStateException("down");
                    }
                },
                ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(1, Backoff.none()).thenStopPartition())
                        .build(),
                new StringDeserializer());

        d.fetched(records(P0, 0, "a", "b"));
        d.pump(control.stopped::contains);

        assertThat(control.stopped).containsExactly(P0);
        assertThat(control.commits.get(P0)).isZero();
        d.pump(control.stopped::contains);
        assertThat(calls).hasSize(1);

        control.stopped.clear(); // resumed
        d.pump(control.stopped::contains);
        assertThat(calls).containsExactly(List.of(0L, 1L), List.of(0L, 1L));
        assertThat(control.commits.get(P0)).isEqualTo(2);
    }

    // ------------------------------------------------------------------ transactional

    @Test
    void transactionalOutputsGoIntoTheInputPartitionsTransactionAndWhatIsNotDoneIsHandedBackBeforeThePoll()
            throws Exception {
        Broker broker = new Broker();
        Set<TopicPartition> paused = new java.util.HashSet<>();
        ProgressDispatch<String, String> d = transactional(
                r -> {
                    HandlerContext.<String, String>sender().send(new ProducerRecord<>("out", r.key(), r.value()));
                    if (r.offset() == 1) {
                        paused.add(P0); // as ListenerContainer.pause(tp) from the handler
                    }
                },
                ErrorPolicy.defaults(),
                broker);

        d.assigned(P0); // the claim placed the consumer: nothing read from the offset node
        d.fetched(records(P0, 0, "a", "b", "c", "d"));
        d.pump(paused::contains);

        assertThat(broker.sent).containsExactly("t-0:va", "t-0:vb");
        assertThat(control.handBacks)
                .as("the position a transaction commits must not pass records not done")
                .containsExactly(List.of(P0, 2L));
        assertThat(control.commits)
                .as("transactions commit the position, not the progress")
                .isEmpty();
        assertThat(control.resumes).isZero();

        paused.clear();
        d.fetched(records(P0, 2, "c", "d")); // fetched again from where it was handed back
        d.pump(paused::contains);

        assertThat(broker.sent).containsExactly("t-0:va", "t-0:vb", "t-0:vc", "t-0:vd");
        assertThat(control.handBacks).hasSize(1);
    }

    @Test
    void anAbortedTransactionLetsTheProgressGoAndTheAttemptsGoOnCountingAcrossTheRewind() throws Exception {
        Broker broker = new Broker();
        broker.rejectValue = "vc"; // the broker rejects c's output at once, every time
        broker.resumeAt = 0; // where the aborted transaction began
        List<Long> handled = new ArrayList<>();
        ProgressDispatch<String, String> d = transactional(
                r -> {
                    handled.add(r.offset());
                    HandlerContext.<String, String>sender().send(new ProducerRecord<>("out", r.key(), r.value()));
                },
                ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(2, Backoff.none()).thenSkip())
                        .build(),
                broker);

        d.fetched(records(P0, 0, "a", "b", "c", "d"));
        d.pump(NONE_HELD);

        assertThat(handled).containsExactly(0L, 1L, 2L);
        assertThat(broker.aborts).isEqualTo(1);
        assertThat(control.handBacks).as("the abort moved the consumer itself").isEmpty();

        d.fetched(records(P0, 0, "a", "b", "c", "d")); // the rewind: fetched again from the transaction's start
        d.pump(NONE_HELD);

        assertThat(handled).containsExactly(0L, 1L, 2L, 0L, 1L, 2L);
        assertThat(broker.aborts).isEqualTo(2);

        d.fetched(records(P0, 0, "a", "b", "c", "d"));
        d.pump(NONE_HELD);

        assertThat(handled)
                .as("c's attempts were used up across the rewinds: skipped without another call")
                .containsExactly(0L, 1L, 2L, 0L, 1L, 2L, 0L, 1L, 3L);
        assertThat(control.outcomes).containsEntry(2L, "org.apache.kafka.common.errors.RecordTooLargeException: c");
        assertThat(broker.sent).endsWith("t-0:va", "t-0:vb", "t-0:vd");
    }

    @Test
    void aDyingWorkersProgressIsHandedBackToItsLowestRecordNotDone() throws Exception {
        Broker broker = new Broker();
        ProgressDispatch<String, String> d = transactional(
                r -> {
                    if (r.offset() == 2) {
                        throw new OutOfMemoryError("simulated");
                    }
                },
                ErrorPolicy.defaults(),
                broker);

        d.fetched(records(P0, 0, "a", "b", "c", "d"));
        try {
            d.pump(NONE_HELD);
        } catch (OutOfMemoryError expected) {
            d.handBack(); // what the worker does before its consumer's final commit
        }

        assertThat(control.handBacks).containsExactly(List.of(P0, 2L));
    }

    // ------------------------------------------------------------------ helpers

    private ProgressDispatch<String, String> batches(
            BatchHandler<String, String> handler, ErrorPolicy policy, Deserializer<String> values) {
        return new ProgressDispatch<>(
                config(null, handler, policy),
                null,
                new StringDeserializer(),
                values,
                control,
                null,
                new InFlight(Thread.currentThread()),
                new ThreadLocal<>());
    }

    private ProgressDispatch<String, String> transactional(
            RecordHandler<String, String> handler, ErrorPolicy policy, Broker broker) {
        TransactionalOutput output = new TransactionalOutput(new StringSerializer(), new StringSerializer());
        output.ownedBy(Thread.currentThread());
        output.bind(broker.consumer());
        CurrentRecord.worker(tp -> OptionalLong.empty(), output);
        return new ProgressDispatch<>(
                config(handler, null, policy),
                null,
                new StringDeserializer(),
                new StringDeserializer(),
                control,
                null,
                new InFlight(Thread.currentThread()),
                new ThreadLocal<>(),
                io.groupkeeper.kafka.internal.KafkaClients.REAL,
                output);
    }

    private ContainerConfig<String, String> config(
            RecordHandler<String, String> handler, BatchHandler<String, String> batch, ErrorPolicy policy) {
        return ProgressDispatchTest.config(
                Ordering.PARTITION, 1, handler, batch, null, policy, ProgressLimits.DEFAULT, clock::get);
    }

    private static List<Long> offsets(List<ConsumerRecord<String, String>> records) {
        return records.stream().map(ConsumerRecord::offset).toList();
    }

    private static ConsumerRecords<ByteBuffer, ByteBuffer> records(TopicPartition tp, long from, String... keys) {
        return ProgressDispatchTest.records(tp, from, keys);
    }

    /** A value deserializer that fails on one value. */
    private static final class FailsOn extends StringDeserializer {
        private final String bad;

        FailsOn(String bad) {
            this.bad = "v" + bad;
        }

        @Override
        public String deserialize(String topic, byte[] data) {
            return check(super.deserialize(topic, data));
        }

        @Override
        public String deserialize(String topic, org.apache.kafka.common.header.Headers headers, ByteBuffer data) {
            return check(super.deserialize(topic, headers, data));
        }

        private String check(String s) {
            if (bad.equals(s)) {
                throw new IllegalArgumentException(s + " does not deserialize here");
            }
            return s;
        }
    }

    /**
     * The consumer's side of the transactional mode as {@link TransactionalOutput} uses it: {@code send} into an input
     * partition's transaction (rejecting one value at once, if set), {@code abort} returning where it began.
     */
    private static final class Broker {
        final List<String> sent = new ArrayList<>();
        String rejectValue;
        long resumeAt;
        int aborts;

        @SuppressWarnings("unchecked")
        CoordinatedConsumer<?, ?> consumer() {
            return (CoordinatedConsumer<?, ?>) Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {CoordinatedConsumer.class}, (proxy, m, args) -> {
                        switch (m.getName()) {
                            case "send" -> {
                                TopicPartition input = (TopicPartition) args[0];
                                ProducerRecord<byte[], byte[]> r = (ProducerRecord<byte[], byte[]>) args[1];
                                String value = new String(r.value(), StandardCharsets.UTF_8);
                                if (value.equals(rejectValue)) {
                                    return CompletableFuture.<RecordMetadata>failedFuture(
                                            new RecordTooLargeException(value.substring(1)));
                                }
                                sent.add(input + ":" + value);
                                return CompletableFuture.completedFuture(
                                        new RecordMetadata(new TopicPartition("out", 0), 0, 0, 0, 0, 0));
                            }
                            case "abort" -> {
                                aborts++;
                                sent.clear(); // (the open transaction's outputs: this test's one transaction)
                                return resumeAt;
                            }
                            default -> throw new UnsupportedOperationException(m.getName());
                        }
                    });
        }
    }

    /** The worker's side, recorded, and its hand-backs (the transactional mode's seeks). */
    private static final class Recorded extends ProgressDispatchTest.Control {
        final List<List<Object>> handBacks = new ArrayList<>();
        int resumes;

        @Override
        public OffsetProgress resumeFrom(TopicPartition tp) {
            resumes++;
            return super.resumeFrom(tp);
        }

        @Override
        public void handBack(TopicPartition tp, long offset) {
            handBacks.add(List.of(tp, offset));
        }
    }
}
