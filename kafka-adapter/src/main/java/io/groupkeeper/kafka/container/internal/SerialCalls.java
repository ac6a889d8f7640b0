package io.groupkeeper.kafka.container.internal;

import io.groupkeeper.kafka.container.BatchFailedException;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.Recovery;
import io.groupkeeper.kafka.container.internal.progress.PartitionProgress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The handler calls of the batch handler and of the transactional mode, for {@link ProgressDispatch}: a run of one
 * partition's records from its {@link PartitionProgress} (what {@link PartitionProgress#runnable(int, List)} hands
 * out), called on the polling thread one call at a time, each record completed in the progress as soon as it is done,
 * so the progress's low-water mark is where the partition resumes whatever happens next (a retry, a stop, a worker
 * that dies). What differs from the record path's calls is what a call is and what its failure means: a batch is
 * one call for many records ({@link BatchFailedException} names the one that failed: those before it are done), and in
 * the transactional mode a call's outputs go into the input partition's transaction when it returns
 * ({@link TransactionalOutput}), and a send that fails aborts that transaction, which moves the partition back to where
 * the transaction began: the progress is let go ({@link #rewound}), and the attempts go on counting across the rewind
 * ({@link Attempts}), so an output the broker always rejects ends in a recovery too.
 *
 * <p>After {@link #run}: {@link #ran} records were taken in hand, {@link #handled} handled; {@link #retryAt} (ticker
 * nanos, or -1) when the first record not done waits for its next attempt; {@link #rewound} when the transaction was
 * aborted behind the run. Polling thread only.
 *
 * <p>About 540 lines: the record and the batch calls share the attempt, the output flush and the recovery, and the
 * transactional mode's aborts run through all three (which record an attempt counts against, the last attempt's split
 * of a batch); split apart, that one piece of rewind state would be spread over classes.
 */
final class SerialCalls<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(FailureLog.LOGGER);

    private final ContainerConfig<K, V> config;
    private final DeadLetterPublisher publisher;
    private final Deserializer<K> keyDeserializer;
    private final Deserializer<V> valueDeserializer;
    private final ProgressDispatch.Control control;
    /** The transactional mode's sender (a call's records go into the transaction when it succeeds); or null. */
    private final TransactionalOutput output;
    /** The polling thread's slot for the watchdog; or null. */
    private final InFlight slot;
    /** The rate-limited WARN of failed handler calls (the worker's one). */
    private final FailureLog failures;
    /** The attempts made at a record (or batch), kept across the waits for a retry and the transactional rewinds. */
    private final Attempts attempts;

    /** Records taken in hand by the last {@link #run} (called, or recovered). */
    int ran;
    /** Records handled by the last {@link #run}. */
    int handled;
    /** When the first record not done runs again (ticker nanos); -1: it does not wait. */
    long retryAt;
    /** The last {@link #run} aborted the partition's transaction: the partition went back, its progress is let go. */
    boolean rewound;

    private TopicPartition tp;
    private PartitionProgress<ConsumerRecord<ByteBuffer, ByteBuffer>> progress;
    private Predicate<TopicPartition> held;
    private OptionalLong token;

    SerialCalls(
            ContainerConfig<K, V> config,
            DeadLetterPublisher publisher,
            Deserializer<K> keyDeserializer,
            Deserializer<V> valueDeserializer,
            ProgressDispatch.Control control,
            TransactionalOutput output,
            InFlight slot,
            FailureLog failures) {
        this.config = config;
        this.publisher = publisher;
        this.keyDeserializer = keyDeserializer;
        this.valueDeserializer = valueDeserializer;
        this.control = control;
        this.output = output;
        this.slot = slot;
        this.failures = failures;
        this.attempts = new Attempts(p -> {
            long t = control.token(p);
            return t < 0 ? OptionalLong.empty() : OptionalLong.of(t);
        });
    }

    /**
     * Runs {@code records} (the run {@code p} hands out, from its lowest record on) until one is not done: it waits for
     * its next attempt, its partition stopped or is held ({@code held}: paused, the container stops), or the
     * transaction was aborted behind it. Each record done is completed in {@code p} at once. {@code token}: what
     * {@code HandlerContext.fencingToken()} says during the calls.
     */
    void run(
            TopicPartition partition,
            PartitionProgress<ConsumerRecord<ByteBuffer, ByteBuffer>> p,
            List<ConsumerRecord<ByteBuffer, ByteBuffer>> records,
            Predicate<TopicPartition> heldNow,
            OptionalLong callToken)
            throws InterruptedException {
        ran = 0;
        handled = 0;
        retryAt = -1;
        rewound = false;
        tp = partition;
        progress = p;
        held = heldNow;
        token = callToken;
        try {
            if (config.batchHandler() != null) {
                batches(records);
            } else {
                oneByOne(records);
            }
        } finally {
            progress = null;
            held = null;
        }
    }

    // ------------------------------------------------------------------ records

    private void oneByOne(List<ConsumerRecord<ByteBuffer, ByteBuffer>> records) throws InterruptedException {
        for (ConsumerRecord<ByteBuffer, ByteBuffer> raw : records) {
            if (ran > 0 && held.test(tp)) {
                return; // paused or stopped by a handler, or the container stops
            }
            ran++;
            if (!handle(raw)) {
                return;
            }
            progress.completeRunnable();
        }
    }

    /** One record: true when done (handled or recovered), false when the partition waits or went back. */
    private boolean handle(ConsumerRecord<ByteBuffer, ByteBuffer> raw) throws InterruptedException {
        ConsumerRecord<K, V> record;
        try {
            record = deserialize(raw);
        } catch (RuntimeException e) {
            return recover(raw, e, 0, config.errorPolicy().deserializationFailure());
        }
        long offset = raw.offset();
        Attempts.Entry prior = attempts.at(tp, offset);
        if (prior.exhausted() != null) {
            // Its last attempt was aborted behind it: recovered now, in the new transaction.
            return recoverAfterAbort(raw, prior);
        }
        for (int attempt = prior.made() + 1; ; attempt++) {
            Throwable failure;
            TransactionalOutput.OutputFailure aborted = null;
            CurrentRecord current = begin(offset);
            try {
                config.recordHandler().handle(record);
                TransactionalOutput.OutputFailure earlier = flushOutput(offset, offset);
                handled++;
                succeeded(offset, earlier);
                return true;
            } catch (OutputFailed e) {
                failure = e.failure.cause;
                aborted = e.failure;
            } catch (Exception e) {
                failure = e;
            } finally {
                end(offset, current);
            }
            if (aborted != null && aborted.resumeAt >= 0 && aborted.first != offset) {
                rewound = true; // an earlier record's output failed after its call returned: its attempt
                earlierOutputFailed(aborted);
                return false;
            }
            config.metrics().handlerFailed(config.group(), raw.topic(), failure.getClass());
            ErrorAction action = config.errorPolicy().actionFor(failure);
            failures.failed(tp, offset, attempt, action.maxAttempts(), failure);
            if (aborted != null && aborted.resumeAt >= 0) {
                rewound = true;
                afterAbort(offset, offset, attempt, action, failure);
                return false;
            }
            if (attempt < action.maxAttempts()) {
                Duration delay = retrying("", offset, attempt, action, failure);
                if (waitHere(delay) && !held.test(tp)) {
                    continue;
                }
                attempts.failed(tp, offset, offset, attempt, null); // for when it comes back
                return false;
            }
            boolean done = recover(raw, failure, attempt, action.recovery());
            attempts.done(tp, offset);
            return done;
        }
    }

    /**
     * The backoff before the next attempt: waited here (a test's sleeper; no backoff at all), true; or false, and the
     * partition waits while the worker polls, until {@link #retryAt}.
     */
    private boolean waitHere(Duration delay) throws InterruptedException {
        if (config.sleeper() != null) {
            config.sleeper().sleep(delay);
            return true;
        }
        if (delay.isZero()) {
            return true;
        }
        retryAt = config.ticker().nanoTime() + delay.toNanos();
        return false;
    }

    /**
     * An output of the record (or batch) {@code offset}..{@code last} failed and its partition's transaction was
     * aborted: the partition has moved back to where that transaction began (this record, or earlier ones whose
     * outputs were in it too). The attempts are kept for when the partition comes back to the record, and the last
     * one's failure if the policy allows no more (then the record is recovered there, in the new transaction, after
     * the records before it were done again).
     */
    private void afterAbort(long offset, long last, int attempt, ErrorAction action, Throwable failure)
            throws InterruptedException {
        boolean more = attempt < action.maxAttempts();
        attempts.failed(tp, offset, last, attempt, more ? null : failure);
        if (more) {
            waitHere(retrying(" in its output, its transaction aborted", offset, attempt, action, failure));
        }
    }

    /** The backoff after failed attempt {@code attempt} at the record (or batch) at {@code offset}, logged (DEBUG). */
    private Duration retrying(String how, long offset, int attempt, ErrorAction action, Throwable failure) {
        Duration delay = action.backoff().delayAfter(attempt);
        LOG.debug(
                "{}@{} failed{} (attempt {} of {}), retrying in {} ms: {}",
                tp,
                offset,
                how,
                attempt,
                action.maxAttempts(),
                delay.toMillis(),
                failure.toString());
        return delay;
    }

    /** The record whose attempts an abort used up, back after the rewind: recovered without another attempt. */
    private boolean recoverAfterAbort(ConsumerRecord<ByteBuffer, ByteBuffer> raw, Attempts.Entry prior)
            throws InterruptedException {
        boolean done = recover(
                raw,
                prior.exhausted(),
                prior.made(),
                config.errorPolicy().actionFor(prior.exhausted()).recovery());
        attempts.done(tp, raw.offset());
        return done;
    }

    // ------------------------------------------------------------------ batches

    /**
     * One batch: the run's records up to the first that does not deserialize (that one alone, recovered, when it is
     * the first). The next run starts where this one stopped.
     */
    private void batches(List<ConsumerRecord<ByteBuffer, ByteBuffer>> records) throws InterruptedException {
        List<ConsumerRecord<ByteBuffer, ByteBuffer>> raws = new ArrayList<>(records.size());
        List<ConsumerRecord<K, V>> batch = new ArrayList<>(records.size());
        RuntimeException undeserializable = null;
        for (ConsumerRecord<ByteBuffer, ByteBuffer> raw : records) {
            try {
                batch.add(deserialize(raw));
                raws.add(raw);
            } catch (RuntimeException e) {
                undeserializable = e;
                break;
            }
        }
        if (raws.isEmpty()) {
            ConsumerRecord<ByteBuffer, ByteBuffer> raw = records.get(0);
            ran++;
            if (recover(raw, undeserializable, 0, config.errorPolicy().deserializationFailure())) {
                progress.completeRunnable();
            }
            return;
        }
        ran += raws.size();
        batch(raws, batch);
    }

    /** A batch, after the attempts {@link Attempts} kept for it. */
    private void batch(List<ConsumerRecord<ByteBuffer, ByteBuffer>> raws, List<ConsumerRecord<K, V>> batch)
            throws InterruptedException {
        Attempts.Entry prior = attempts.at(tp, raws.get(0).offset());
        if (prior.exhausted() == null) {
            batch(raws, batch, prior.made());
            return;
        }
        // Its last attempt was aborted behind it: its records are recovered now, in the new transaction.
        int n = 0;
        while (n < raws.size() && raws.get(n).offset() <= prior.last()) {
            n++;
        }
        boolean all = recoverEach(
                raws.subList(0, n),
                prior.exhausted(),
                prior.made(),
                config.errorPolicy().actionFor(prior.exhausted()).recovery());
        attempts.done(tp, raws.get(0).offset());
        if (all && n < raws.size()) {
            batch(raws.subList(n, raws.size()), batch.subList(n, batch.size()), 0);
        }
    }

    /** A batch after {@code attemptsMade} failed attempts at it; true when all its records are done. */
    private boolean batch(
            List<ConsumerRecord<ByteBuffer, ByteBuffer>> rawList,
            List<ConsumerRecord<K, V>> batchList,
            int attemptsMade)
            throws InterruptedException {
        List<ConsumerRecord<ByteBuffer, ByteBuffer>> raws = rawList;
        List<ConsumerRecord<K, V>> batch = batchList;
        int attempt = attemptsMade;
        while (!raws.isEmpty()) {
            if (held.test(tp)) {
                return false;
            }
            attempt++;
            long first = raws.get(0).offset();
            long last = raws.get(raws.size() - 1).offset();
            Exception failure;
            CurrentRecord current = begin(first);
            try {
                config.batchHandler().handle(Collections.unmodifiableList(batch));
                TransactionalOutput.OutputFailure earlier = flushOutput(first, last);
                handled += batch.size();
                complete(raws.size());
                succeeded(first, earlier);
                return true;
            } catch (Exception e) {
                failure = e;
            } finally {
                end(first, current);
            }
            Throwable cause = failure instanceof OutputFailed of
                    ? of.failure.cause
                    : failure instanceof BatchFailedException bfe && (output != null || bfe.index() < raws.size())
                            ? bfe.getCause()
                            : failure;
            if (failure instanceof OutputFailed of && of.failure.resumeAt >= 0 && of.failure.first != first) {
                earlierOutputFailed(of.failure); // an earlier batch's output failed after its call returned
                rewound = true;
                return false;
            }
            config.metrics().handlerFailed(config.group(), tp.topic(), cause.getClass());
            ErrorAction action = config.errorPolicy().actionFor(cause);
            failures.failed(tp, first, attempt, action.maxAttempts(), cause);
            if (failure instanceof OutputFailed of && of.failure.resumeAt >= 0) {
                afterAbort(first, last, attempt, action, cause);
                rewound = true;
                return false;
            }
            boolean one = false;
            if (failure instanceof BatchFailedException bfe && bfe.index() < raws.size()) {
                int named = bfe.index();
                if (output == null) { // the records before it are done (their effects happened)
                    if (named > 0) {
                        attempt = 1; // this was the first attempt of the record named
                    }
                    handled += named;
                    complete(named);
                    one = true;
                } else if (attempt >= action.maxAttempts()) {
                    // The transactional mode dropped the call's outputs, those of the records before the one named
                    // too: on the last attempt, they run again as a batch of their own (its outputs go into the
                    // transaction), then the record named alone is recovered (docs/exactly-once.md).
                    if (named > 0 && !batch(raws.subList(0, named), batch.subList(0, named), 0)) {
                        return false;
                    }
                    one = true;
                }
                if (one) {
                    raws = raws.subList(named, raws.size());
                    batch = batch.subList(named, batch.size());
                }
            }
            if (attempt < action.maxAttempts()) {
                Duration delay = action.backoff().delayAfter(attempt);
                if (waitHere(delay) && !held.test(tp)) {
                    continue;
                }
                // The worker polls meanwhile; the batch comes back when due.
                attempts.failed(
                        tp, raws.get(0).offset(), raws.get(raws.size() - 1).offset(), attempt, null);
                return false;
            }
            int recover = one ? 1 : raws.size();
            boolean all = recoverEach(raws.subList(0, recover), cause, attempt, action.recovery());
            attempts.done(tp, raws.get(0).offset());
            if (!all) {
                return false;
            }
            raws = raws.subList(recover, raws.size());
            batch = batch.subList(recover, batch.size());
            attempt = 0;
        }
        return true;
    }

    /** Recovers each of {@code raws}, each completed as it is; false at the first not recovered. */
    private boolean recoverEach(
            List<ConsumerRecord<ByteBuffer, ByteBuffer>> raws, Throwable cause, int made, Recovery recovery)
            throws InterruptedException {
        for (ConsumerRecord<ByteBuffer, ByteBuffer> raw : raws) {
            if (!recover(raw, cause, made, recovery)) {
                return false;
            }
            complete(1);
        }
        return true;
    }

    // ------------------------------------------------------------------ shared

    /** The first {@code n} records of the run are done: the progress's low-water mark passes them. */
    private void complete(int n) {
        for (int i = 0; i < n; i++) {
            progress.completeRunnable();
        }
    }

    /** A handler call begins: the watchdog's slot, the thread's current record, the output. */
    private CurrentRecord begin(long offset) {
        if (slot != null) {
            slot.begin(tp, offset);
        }
        CurrentRecord current = slot == null ? CurrentRecord.ofThread() : slot.currentRecord();
        current.set(tp, token);
        if (output != null) {
            output.begin();
        }
        return current;
    }

    /** After the call: records of a call that did not return normally are dropped (nothing once flushed). */
    private void end(long offset, CurrentRecord current) {
        if (output != null) {
            output.discard();
        }
        ProgressDispatch.ended(tp, offset, slot, current, config.ticker());
    }

    /**
     * The handler returned: its records go into the input partition's transaction. Returns the failure of an output
     * flushed earlier, reported since ({@link TransactionalOutput#takeEarlierFailure}), or null.
     */
    private TransactionalOutput.OutputFailure flushOutput(long first, long last) {
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
     * the transactional mode only when the partition passes it: its outputs may still fail after the call, and that
     * comes out after its transaction was aborted and rewound ({@link #earlierOutputFailed}), when the count must go on.
     */
    private void succeeded(long offset, TransactionalOutput.OutputFailure earlier) {
        control.outcome(tp, offset, null);
        if (output == null) {
            attempts.done(tp, offset);
        }
        earlierOutputFailed(earlier);
    }

    /**
     * An output flushed earlier failed after its call had returned (its transaction aborts, or has): one failed
     * attempt of the record (or batch) it names, kept for when the partition comes back to it, so an output the
     * broker always rejects ends in a recovery too. No backoff: the partition goes back at once.
     */
    private void earlierOutputFailed(TransactionalOutput.OutputFailure f) {
        if (f == null) {
            return;
        }
        config.metrics().handlerFailed(config.group(), tp.topic(), f.cause.getClass());
        int made = attempts.at(tp, f.first).made() + 1;
        boolean more = made < config.errorPolicy().actionFor(f.cause).maxAttempts();
        attempts.failed(tp, f.first, f.last, made, more ? null : f.cause);
        LOG.debug("{}@{}: its output failed after the call (attempt {}): {}", tp, f.first, made, f.cause.toString());
    }

    /** A send into the transaction failed (already aborted and rewound): the cause goes to the error policy. */
    static final class OutputFailed extends RuntimeException {
        final transient TransactionalOutput.OutputFailure failure;

        OutputFailed(TransactionalOutput.OutputFailure failure) {
            super(failure.cause);
            this.failure = failure;
        }
    }

    private ConsumerRecord<K, V> deserialize(ConsumerRecord<ByteBuffer, ByteBuffer> raw) {
        return InPlaceDeserializer.deserialize(keyDeserializer, valueDeserializer, raw);
    }

    /** After the last attempt: true when the record is done (dead letter acknowledged, or skipped). */
    private boolean recover(ConsumerRecord<ByteBuffer, ByteBuffer> raw, Throwable failure, int made, Recovery recovery)
            throws InterruptedException {
        String what = raw.topic() + "-" + raw.partition() + "@" + raw.offset();
        String after = made == 0 ? "it does not deserialize" : "after " + made + " attempt(s)";
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
                            ? publisher.publish(raw, failure, made)
                            : publisher.publish(raw, failure, made, r -> output.sendNow(tp, r));
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
                    long at = -1;
                    if (output != null) { // the dead letter may still be in the open transaction: never commit it
                        at = output.abort(tp);
                        rewound = at >= 0;
                    }
                    control.stopPartition(
                            tp,
                            at >= 0 ? at : raw.offset(),
                            "dead-letter " + e.getMessage() + "; record failed with " + failure);
                    config.metrics().recovered(config.group(), raw.topic(), Recovery.STOP_PARTITION);
                    return false;
                }
            }
            default -> throw new IllegalStateException("unknown recovery " + recovery);
        }
    }
}
