package io.groupkeeper.kafka.container.internal;

import io.groupkeeper.kafka.container.BatchFailedException;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.Recovery;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one worker's handler over the records of one partition from one fetch, applying the error policy: retries
 * with backoff (the worker polls while a record waits for its next attempt, see {@link Control#retryLater}), then
 * dead-letter, skip or stop. Returns the first offset not done (to hand back with a seek), or
 * -1 when every record is done. Worker thread only.
 *
 * <p>About 570 lines: the record and the batch paths share the attempt, the output flush and the recovery, and the
 * transactional mode's aborts run through all three (where the partition resumes, which record an attempt counts
 * against, the last attempt's split of a batch); split apart, that one piece of rewind state would be spread over
 * classes. The attempts kept across hand-backs are {@link Attempts}, the outputs {@link TransactionalOutput}.
 */
final class Dispatcher<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    /** What the dispatcher needs from its worker. */
    interface Control {
        /** Whether the partition's remaining records must be handed back now (paused, stopped, stopping). */
        boolean hold(TopicPartition partition);

        /** Waits a backoff; false if the worker is stopping (the record is handed back, not recovered). */
        boolean backoff(Duration delay) throws InterruptedException;

        /**
         * The attempts already made at the record (or batch) at {@code offset} of {@code partition} before it was
         * handed back (none if nothing is known); a wait for its next attempt ends here.
         */
        Attempts.Entry attempts(TopicPartition partition, long offset);

        /**
         * Keeps the attempts made at the record (or batch {@code offset}..{@code last}) for when the partition comes
         * back to it; {@code exhausted}: the last attempt's failure, when the record is to be recovered then.
         */
        void failed(TopicPartition partition, long offset, long last, int made, Throwable exhausted);

        /** The record (or batch) at {@code offset} is done: its attempts are forgotten. */
        void done(TopicPartition partition, long offset);

        /**
         * Whether the next attempt waits while the worker keeps polling (the partition is handed back and paused for
         * {@code delay}, so a revocation is served meanwhile); false: wait in place.
         */
        boolean retryLater(TopicPartition partition, Duration delay);

        void stopPartition(TopicPartition partition, long offset, String reason);

        /**
         * The record (or batch) at {@code offset} is done: handled ({@code failure} null), or recovered after
         * {@code failure} (dead-lettered, skipped).
         */
        void outcome(TopicPartition partition, long offset, Throwable failure);

        String member();
    }

    private final ContainerConfig<K, V> config;
    private final DeadLetterPublisher publisher;
    private final InFlight inFlight;
    private final Control control;
    /** Records handled successfully by the last {@link #dispatch} call. */
    int processed;
    /**
     * Where the partition of the current {@link #dispatch} call must resume if a throwable escapes it (an Error from
     * the handler, a failing deserializer or listener): just past the last record done, so the worker can hand back
     * the rest before its consumer's final commit.
     */
    long position;

    private final Deserializer<K> keyDeserializer;
    private final Deserializer<V> valueDeserializer;
    /** The transactional mode's sender (a handler call's records go into the transaction when it succeeds); or null. */
    private final TransactionalOutput output;
    /** The rate-limited WARN of failed handler calls. */
    private final FailureLog failures;

    Dispatcher(
            ContainerConfig<K, V> config,
            DeadLetterPublisher publisher,
            InFlight inFlight,
            Control control,
            Deserializer<K> keyDeserializer,
            Deserializer<V> valueDeserializer,
            TransactionalOutput output) {
        this.config = config;
        this.output = output;
        this.keyDeserializer = keyDeserializer;
        this.valueDeserializer = valueDeserializer;
        this.publisher = publisher;
        this.inFlight = inFlight;
        this.control = control;
        this.failures = new FailureLog(config.ticker());
    }

    long dispatch(TopicPartition tp, List<ConsumerRecord<ByteBuffer, ByteBuffer>> records) throws InterruptedException {
        processed = 0;
        position = records.get(0).offset();
        return config.batchHandler() != null ? batches(tp, records) : oneByOne(tp, records);
    }

    // ------------------------------------------------------------------ records

    private long oneByOne(TopicPartition tp, List<ConsumerRecord<ByteBuffer, ByteBuffer>> records)
            throws InterruptedException {
        for (ConsumerRecord<ByteBuffer, ByteBuffer> raw : records) {
            if (control.hold(tp) || !handle(tp, raw)) {
                if (rewoundTo >= 0) {
                    long at = rewoundTo;
                    rewoundTo = -1;
                    position = at;
                    return at;
                }
                return raw.offset();
            }
            position = raw.offset() + 1;
        }
        return -1;
    }

    /** One record: true when done (handled or recovered), false when it must be handed back. */
    private boolean handle(TopicPartition tp, ConsumerRecord<ByteBuffer, ByteBuffer> raw) throws InterruptedException {
        ConsumerRecord<K, V> record;
        try {
            record = deserialize(raw);
        } catch (RuntimeException e) {
            return recover(raw, e, 0, config.errorPolicy().deserializationFailure());
        }
        Attempts.Entry prior = control.attempts(tp, raw.offset());
        if (prior.exhausted()
                != null) { // its last attempt was aborted behind it: recovered now, in the new transaction
            return recoverAfterAbort(tp, raw, prior);
        }
        for (int attempt = prior.made() + 1; ; attempt++) {
            Throwable failure;
            TransactionalOutput.OutputFailure aborted = null;
            inFlight.begin(tp, raw.offset());
            CurrentRecord.handling(tp);
            beginOutput();
            try {
                config.recordHandler().handle(record);
                TransactionalOutput.OutputFailure earlier = flushOutput(tp, raw.offset(), raw.offset());
                processed++;
                succeeded(tp, raw.offset(), earlier);
                return true;
            } catch (OutputFailed e) {
                failure = e.failure.cause;
                aborted = e.failure;
            } catch (Exception e) {
                failure = e;
            } finally {
                discardOutput();
                CurrentRecord.handling(null);
                logEnd();
                clearInterrupt(tp, raw.offset());
            }
            if (aborted != null && aborted.resumeAt >= 0 && aborted.first != raw.offset()) {
                rewoundTo = aborted.resumeAt; // an earlier record's output failed after its call returned: its attempt
                earlierOutputFailed(tp, aborted);
                return false;
            }
            config.metrics().handlerFailed(config.group(), raw.topic(), failure.getClass());
            ErrorAction action = config.errorPolicy().actionFor(failure);
            failures.failed(tp, raw.offset(), attempt, action.maxAttempts(), failure);
            if (aborted != null && aborted.resumeAt >= 0) {
                rewoundTo = aborted.resumeAt;
                afterAbort(tp, raw.offset(), raw.offset(), attempt, action, failure);
                return false;
            }
            if (attempt < action.maxAttempts()) {
                Duration delay = action.backoff().delayAfter(attempt);
                LOG.debug(
                        "{}-{}@{} failed (attempt {} of {}), retrying in {} ms: {}",
                        raw.topic(),
                        raw.partition(),
                        raw.offset(),
                        attempt,
                        action.maxAttempts(),
                        delay.toMillis(),
                        failure.toString());
                if (control.retryLater(tp, delay)) {
                    control.failed(tp, raw.offset(), raw.offset(), attempt, null);
                    return false; // handed back; the worker polls meanwhile and brings the record back when due
                }
                if (!control.backoff(delay)) {
                    return false;
                }
                continue;
            }
            boolean done = recover(raw, failure, attempt, action.recovery());
            control.done(tp, raw.offset());
            return done;
        }
    }

    /**
     * An output of the record (or batch) {@code offset}..{@code last} failed and its partition's transaction was
     * aborted: the partition has moved back to where that transaction began (this record, or earlier ones whose
     * outputs were in it too), where the worker hands it back. The attempts are kept for when the partition comes
     * back to the record, and the last one's failure if the policy allows no more (then the record is recovered
     * there, in the new transaction, after the records before it were done again).
     */
    private void afterAbort(
            TopicPartition tp, long offset, long last, int attempt, ErrorAction action, Throwable failure)
            throws InterruptedException {
        boolean more = attempt < action.maxAttempts();
        control.failed(tp, offset, last, attempt, more ? null : failure);
        if (more) {
            Duration delay = action.backoff().delayAfter(attempt);
            LOG.debug(
                    "{}@{} failed in its output (attempt {} of {}); its transaction was aborted, retrying in {} ms: "
                            + "{}",
                    tp,
                    offset,
                    attempt,
                    action.maxAttempts(),
                    delay.toMillis(),
                    failure.toString());
            if (!control.retryLater(tp, delay)) {
                control.backoff(delay); // (stopping: handed back all the same)
            }
        }
    }

    /** The record whose attempts an abort used up, back after the rewind: recovered without another attempt. */
    private boolean recoverAfterAbort(
            TopicPartition tp, ConsumerRecord<ByteBuffer, ByteBuffer> raw, Attempts.Entry prior)
            throws InterruptedException {
        boolean done = recover(
                raw,
                prior.exhausted(),
                prior.made(),
                config.errorPolicy().actionFor(prior.exhausted()).recovery());
        control.done(tp, raw.offset());
        return done;
    }

    // ------------------------------------------------------------------ batches

    private long batches(TopicPartition tp, List<ConsumerRecord<ByteBuffer, ByteBuffer>> records)
            throws InterruptedException {
        List<ConsumerRecord<ByteBuffer, ByteBuffer>> raws = new ArrayList<>();
        List<ConsumerRecord<K, V>> batch = new ArrayList<>();
        for (ConsumerRecord<ByteBuffer, ByteBuffer> raw : records) {
            Optional<ConsumerRecord<K, V>> r = tryDeserialize(raw);
            if (r.isPresent()) {
                raws.add(raw);
                batch.add(r.get());
                continue;
            }
            // A record that does not deserialize: the batch before it first, then the record itself.
            long notDone = batch(tp, raws, batch);
            if (notDone >= 0) {
                return notDone;
            }
            raws.clear();
            batch.clear();
            if (control.hold(tp)
                    || !recover(
                            raw,
                            lastDeserializationFailure,
                            0,
                            config.errorPolicy().deserializationFailure())) {
                return raw.offset();
            }
            position = raw.offset() + 1;
        }
        return batch(tp, raws, batch);
    }

    private RuntimeException lastDeserializationFailure;

    private Optional<ConsumerRecord<K, V>> tryDeserialize(ConsumerRecord<ByteBuffer, ByteBuffer> raw) {
        try {
            return Optional.of(deserialize(raw));
        } catch (RuntimeException e) {
            lastDeserializationFailure = e;
            return Optional.empty();
        }
    }

    private long batch(
            TopicPartition tp, List<ConsumerRecord<ByteBuffer, ByteBuffer>> raws, List<ConsumerRecord<K, V>> batch)
            throws InterruptedException {
        if (raws.isEmpty()) {
            return -1;
        }
        Attempts.Entry prior = control.attempts(tp, raws.get(0).offset());
        if (prior.exhausted() == null) {
            return batch(tp, raws, batch, prior.made());
        }
        // Its last attempt was aborted behind it: its records are recovered now, in the new transaction.
        int n = 0;
        while (n < raws.size() && raws.get(n).offset() <= prior.last()) {
            n++;
        }
        long notDone = recoverEach(
                raws.subList(0, n),
                prior.exhausted(),
                prior.made(),
                config.errorPolicy().actionFor(prior.exhausted()).recovery());
        control.done(tp, raws.get(0).offset());
        return notDone >= 0 ? notDone : batch(tp, raws.subList(n, raws.size()), batch.subList(n, batch.size()), 0);
    }

    /** A batch (its records from {@code rawList}) after {@code attemptsMade} failed attempts at it. */
    private long batch(
            TopicPartition tp,
            List<ConsumerRecord<ByteBuffer, ByteBuffer>> rawList,
            List<ConsumerRecord<K, V>> batchList,
            int attemptsMade)
            throws InterruptedException {
        List<ConsumerRecord<ByteBuffer, ByteBuffer>> raws = rawList;
        List<ConsumerRecord<K, V>> batch = batchList;
        int attempt = attemptsMade;
        while (!raws.isEmpty()) {
            if (control.hold(tp)) {
                return raws.get(0).offset();
            }
            attempt++;
            long first = raws.get(0).offset();
            long last = raws.get(raws.size() - 1).offset();
            Exception failure;
            inFlight.begin(tp, first);
            CurrentRecord.handling(tp);
            beginOutput();
            try {
                config.batchHandler().handle(Collections.unmodifiableList(batch));
                TransactionalOutput.OutputFailure earlier = flushOutput(tp, first, last);
                processed += batch.size();
                position = last + 1;
                succeeded(tp, first, earlier);
                return -1;
            } catch (Exception e) {
                failure = e;
            } finally {
                discardOutput();
                CurrentRecord.handling(null);
                logEnd();
                clearInterrupt(tp, first);
            }
            Throwable cause = failure instanceof OutputFailed of
                    ? of.failure.cause
                    : failure instanceof BatchFailedException bfe && (output != null || bfe.index() < raws.size())
                            ? bfe.getCause()
                            : failure;
            if (failure instanceof OutputFailed of && of.failure.resumeAt >= 0 && of.failure.first != first) {
                earlierOutputFailed(tp, of.failure); // an earlier batch's output failed after its call returned
                position = of.failure.resumeAt;
                return of.failure.resumeAt;
            }
            config.metrics().handlerFailed(config.group(), tp.topic(), cause.getClass());
            ErrorAction action = config.errorPolicy().actionFor(cause);
            failures.failed(tp, first, attempt, action.maxAttempts(), cause);
            if (failure instanceof OutputFailed of && of.failure.resumeAt >= 0) {
                afterAbort(tp, first, last, attempt, action, cause);
                position = of.failure.resumeAt;
                return of.failure.resumeAt;
            }
            boolean one = false;
            if (failure instanceof BatchFailedException bfe && bfe.index() < raws.size()) {
                int named = bfe.index();
                if (output == null) { // the records before it are done (their effects happened)
                    if (named > 0) {
                        attempt = 1; // this was the first attempt of the record named
                    }
                    processed += named;
                    one = true;
                } else if (attempt >= action.maxAttempts()) {
                    // The transactional mode dropped the call's outputs, those of the records before the one named
                    // too: on the last attempt, they run again as a batch of their own (its outputs go into the
                    // transaction), then the record named alone is recovered (docs/exactly-once.md).
                    long notDone = named == 0 ? -1 : batch(tp, raws.subList(0, named), batch.subList(0, named), 0);
                    if (notDone >= 0) {
                        return notDone;
                    }
                    one = true;
                }
                if (one) {
                    raws = raws.subList(named, raws.size());
                    batch = batch.subList(named, batch.size());
                    position = raws.get(0).offset();
                }
            }
            if (attempt < action.maxAttempts()) {
                Duration delay = action.backoff().delayAfter(attempt);
                if (control.retryLater(tp, delay)) { // the worker polls meanwhile, the batch comes back when due
                    control.failed(
                            tp, raws.get(0).offset(), raws.get(raws.size() - 1).offset(), attempt, null);
                    return raws.get(0).offset();
                }
                if (!control.backoff(delay)) {
                    return raws.get(0).offset();
                }
                continue;
            }
            int recover = one ? 1 : raws.size();
            long notDone = recoverEach(raws.subList(0, recover), cause, attempt, action.recovery());
            control.done(tp, raws.get(0).offset());
            if (notDone >= 0) {
                return notDone;
            }
            raws = raws.subList(recover, raws.size());
            batch = batch.subList(recover, batch.size());
            attempt = 0;
        }
        return -1;
    }

    /** Recovers each of {@code raws}; returns -1, or where the partition is handed back (one was not recovered). */
    private long recoverEach(
            List<ConsumerRecord<ByteBuffer, ByteBuffer>> raws, Throwable cause, int attempts, Recovery recovery)
            throws InterruptedException {
        for (ConsumerRecord<ByteBuffer, ByteBuffer> raw : raws) {
            if (!recover(raw, cause, attempts, recovery)) {
                long at = rewoundTo >= 0 ? rewoundTo : raw.offset();
                rewoundTo = -1;
                position = Math.min(position, at);
                return at;
            }
            position = raw.offset() + 1;
        }
        return -1;
    }

    // ------------------------------------------------------------------ shared

    private void beginOutput() {
        if (output != null) {
            output.begin();
        }
    }

    /**
     * The handler returned: its records go into the input partition's transaction. Returns the failure of an output
     * flushed earlier, reported since ({@link TransactionalOutput#takeEarlierFailure}), or null.
     */
    private TransactionalOutput.OutputFailure flushOutput(TopicPartition tp, long first, long last) {
        if (output == null) {
            return null;
        }
        TransactionalOutput.OutputFailure f = output.flush(tp, first, last);
        if (f != null) {
            throw new OutputFailed(f);
        }
        return output.takeEarlierFailure();
    }

    /**
     * The call at {@code offset} returned and its outputs went into the transaction. Its attempts are forgotten — in
     * the transactional mode only when the position passes it: its outputs may still fail after the call, and that
     * comes out after its transaction was aborted and rewound ({@link #earlierOutputFailed}), when the count must go on.
     */
    private void succeeded(TopicPartition tp, long offset, TransactionalOutput.OutputFailure earlier) {
        control.outcome(tp, offset, null);
        if (output == null) {
            control.done(tp, offset);
        }
        earlierOutputFailed(tp, earlier);
    }

    /**
     * An output flushed earlier failed after its call had returned (its transaction aborts, or has): one failed
     * attempt of the record (or batch) it names, kept for when the partition comes back to it, so an output the
     * broker always rejects ends in a recovery too. No backoff: the partition goes back at once.
     */
    private void earlierOutputFailed(TopicPartition tp, TransactionalOutput.OutputFailure f) {
        if (f == null) {
            return;
        }
        config.metrics().handlerFailed(config.group(), tp.topic(), f.cause.getClass());
        int made = control.attempts(tp, f.first).made() + 1;
        boolean more = made < config.errorPolicy().actionFor(f.cause).maxAttempts();
        control.failed(tp, f.first, f.last, made, more ? null : f.cause);
        LOG.debug("{}@{}: its output failed after the call (attempt {}): {}", tp, f.first, made, f.cause.toString());
    }

    /** A send into the transaction failed (already aborted and rewound): the cause goes to the error policy. */
    static final class OutputFailed extends RuntimeException {
        final TransactionalOutput.OutputFailure failure;

        OutputFailed(TransactionalOutput.OutputFailure failure) {
            super(failure.cause);
            this.failure = failure;
        }
    }

    /** Where the partition continues when the transaction was aborted behind the record in hand; -1: none. */
    private long rewoundTo = -1;

    /** After the call: records of a call that did not return normally are dropped (nothing once flushed). */
    private void discardOutput() {
        if (output != null) {
            output.discard();
        }
    }

    private ConsumerRecord<K, V> deserialize(ConsumerRecord<ByteBuffer, ByteBuffer> raw) {
        return InPlaceDeserializer.deserialize(keyDeserializer, valueDeserializer, raw);
    }

    /**
     * A handler that caught an {@code InterruptedException} and restored the thread's interrupt flag (the usual idiom)
     * would make the next backoff or dead-letter wait throw, and the worker leave. Nothing in the container interrupts
     * its workers (they stop through {@code stop()}), so the flag is the handler's: cleared here, once logged.
     */
    private void clearInterrupt(TopicPartition tp, long offset) {
        if (Thread.interrupted()) {
            if (!interruptLogged) {
                interruptLogged = true;
                LOG.warn(
                        "the handler returned from {} at offset {} with the thread's interrupt "
                                + "flag set; cleared (the container's workers stop through stop(), not interrupts; logged "
                                + "once per worker)",
                        tp,
                        offset);
            }
        }
    }

    private boolean interruptLogged;

    private void logEnd() {
        if (inFlight.end() >= 0) {
            long ms = (config.ticker().nanoTime() - inFlight.reportedSince) / 1_000_000;
            LOG.info(
                    "handler on {} at offset {} finished after about {} ms (reported by the " + "watchdog)",
                    inFlight.partition(),
                    inFlight.offset(),
                    ms);
        }
    }

    /** After the last attempt: true when the record is done (dead letter acknowledged, or skipped). */
    private boolean recover(
            ConsumerRecord<ByteBuffer, ByteBuffer> raw, Throwable failure, int attempts, Recovery recovery)
            throws InterruptedException {
        TopicPartition tp = new TopicPartition(raw.topic(), raw.partition());
        String what = raw.topic() + "-" + raw.partition() + "@" + raw.offset();
        String after = attempts == 0 ? "it does not deserialize" : "after " + attempts + " attempt(s)";
        switch (recovery) {
            case SKIP -> {
                LOG.warn("skipped {} {}: {}", what, after, failure.toString());
                config.metrics().recovered(config.group(), raw.topic(), recovery);
                control.outcome(tp, raw.offset(), failure);
                return true;
            }
            case STOP_PARTITION -> {
                control.stopPartition(tp, raw.offset(), FailureLog.reason(failure) + " (" + after + ")");
                config.metrics().recovered(config.group(), raw.topic(), recovery);
                return false;
            }
            case DEAD_LETTER -> {
                try {
                    String topic = output == null
                            ? publisher.publish(raw, failure, attempts)
                            : publisher.publish(raw, failure, attempts, r -> output.sendNow(tp, r));
                    LOG.warn("{} dead-lettered to {} {}: {}", what, topic, after, failure.toString());
                    config.metrics().recovered(config.group(), raw.topic(), recovery);
                    control.outcome(tp, raw.offset(), failure);
                    try {
                        config.listener().deadLettered(DeadLetterPublisher.bytes(raw), topic, failure);
                    } catch (RuntimeException e) {
                        LOG.warn("container listener threw on deadLettered: {}", e.toString());
                    }
                    return true;
                } catch (DeadLetterPublisher.DeadLetterException e) {
                    if (output != null) { // the dead letter may still be in the open transaction: never commit it
                        long at = output.abort(tp);
                        if (at >= 0 && at != raw.offset()) {
                            rewoundTo = at;
                        }
                    }
                    control.stopPartition(
                            tp,
                            rewoundTo >= 0 ? rewoundTo : raw.offset(),
                            "dead-letter " + e.getMessage() + "; record failed with " + failure);
                    config.metrics().recovered(config.group(), raw.topic(), Recovery.STOP_PARTITION);
                    return false;
                }
            }
            default -> throw new IllegalStateException("unknown recovery " + recovery);
        }
    }
}
