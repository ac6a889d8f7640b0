package io.groupkeeper.kafka.container.internal;

import io.groupkeeper.kafka.container.AsyncRecordHandler;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.Recovery;
import io.groupkeeper.kafka.container.Ticker;
import io.groupkeeper.kafka.container.internal.progress.FetchedView;
import io.groupkeeper.kafka.container.internal.progress.OffsetProgress;
import io.groupkeeper.kafka.container.internal.progress.Ordering;
import io.groupkeeper.kafka.container.internal.progress.OwnedPartitions;
import io.groupkeeper.kafka.container.internal.progress.PartitionProgress;
import io.groupkeeper.kafka.container.internal.progress.Ticket;
import io.groupkeeper.kafka.internal.KafkaClients;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The record path of one worker (one member): every owned partition's {@link PartitionProgress} (through
 * {@link OwnedPartitions}), fed by the polling thread with fetched records, dispatching tickets to the handler, taking
 * their outcomes back through one queue, and applying the error policy per record (docs/parallel.md, "Wiring into the
 * container"). One machinery for the three orderings: they differ only in the lane of a record.
 *
 * <p>Where handler calls run: on the polling thread itself when the parallelism is 1 ({@code work} null: one call at a
 * time, as before the orderings existed), on {@code work}'s threads otherwise; an {@link AsyncRecordHandler} is called
 * on the polling thread and completes wherever its stage completes. Dead letters are published on {@code work} (or the
 * polling thread when null), so the polling thread never waits for a broker's acknowledgement while others work.
 *
 * <p>What is committed is each partition's progress ({@link Control#commit}): its low-water mark, every record below it
 * done, and the offsets done above it. Polling thread only, except {@link #enqueue} (any thread).
 *
 * <p>The batch handler and the transactional mode go the same way (the same progress, commits, drains and
 * ownership changes), parallelism 1 on the polling thread, their calls made by {@link SerialCalls}: a batch is one call
 * for a partition's run of records, and the transactional mode's Kafka transactions commit the consumer's position,
 * so what a progress holds and has not done is handed back before every poll ({@link #handBack()}).
 *
 * <p>About 1,100 lines, a third of them comments: the one place where a ticket's life is decided (dispatch, the call on
 * one of three kinds of thread, the outcome, the error policy's retry, skip, stop or dead letter, the hand-back) and
 * where ownership changes meet in-flight work (claim, revocation drain, loss, stop), for every handler. Split, the
 * outstanding count and the outcome queue, which every one of those paths moves, would be shared between classes.
 */
final class ProgressDispatch<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(FailureLog.LOGGER);
    /** Handler calls run on the polling thread between two polls at most (as one poll's records were before). */
    static final int INLINE_BUDGET = 500;

    /** What the dispatch needs from its worker (and its consumer). */
    interface Control {
        /**
         * Commits of {@code tp} write {@code progress} from now on: its low-water mark as the offset, the done offsets
         * above it as the done value ({@code ProgressCodec.encode}).
         */
        void commit(TopicPartition tp, OffsetProgress progress);

        /**
         * The progress the partition resumes with: its stored offset and done value, as claimed (or as adopted after
         * an operator's change); null when the store held no offset (the start policy places it).
         */
        OffsetProgress resumeFrom(TopicPartition tp);

        /** The error policy stopped the partition at {@code offset} (held until resumed). */
        void stopPartition(TopicPartition tp, long offset, String reason);

        /** The record at {@code offset} is done: handled ({@code failure} null) or recovered after it. */
        void outcome(TopicPartition tp, long offset, Throwable failure);

        /** An outcome arrived while the polling thread waits in a poll: end the wait. Any thread. */
        void wakeup();

        /** The fencing token of the claim the partition's records were fetched under (-1 when unknown). */
        long token(TopicPartition tp);

        /**
         * The transactional mode: the consumer's next fetch of {@code tp}, and its commits, start at {@code offset}
         * (what the partition's progress has not done: its records were let go). Not called otherwise.
         */
        default void handBack(TopicPartition tp, long offset) {
            throw new UnsupportedOperationException("handBack is for the transactional mode");
        }
    }

    private enum Kind {
        HANDLED,
        FAILED,
        RECOVERED,
        NOT_RECOVERED,
        FATAL
    }

    /** How progress reads a fetched record in place: offset, key (its bytes) and serialized size. */
    private static final FetchedView<ConsumerRecord<ByteBuffer, ByteBuffer>> RAW = new FetchedView<>() {
        @Override
        public long offset(ConsumerRecord<ByteBuffer, ByteBuffer> r) {
            return r.offset();
        }

        @Override
        public Object key(ConsumerRecord<ByteBuffer, ByteBuffer> r) {
            return r.key();
        }

        @Override
        public int bytes(ConsumerRecord<ByteBuffer, ByteBuffer> r) {
            return Math.max(0, r.serializedKeySize()) + Math.max(0, r.serializedValueSize());
        }
    };

    /** A ticket back from a handler call or a dead letter. */
    private record Outcome(
            TopicPartition tp,
            Ticket<ConsumerRecord<ByteBuffer, ByteBuffer>> ticket,
            Kind kind,
            Throwable failure,
            String reason) {}

    private final ContainerConfig<K, V> config;
    private final DeadLetterPublisher publisher;
    private final Deserializer<K> keyDeserializer;
    private final Deserializer<V> valueDeserializer;
    private final Control control;
    /** Null: handler calls and dead letters on the polling thread. */
    private final Executor work;
    /** The polling thread's slot for the watchdog (inline calls). */
    private final InFlight inlineSlot;
    /** The slot of each of {@code work}'s threads (set by the thread factory). */
    private final ThreadLocal<InFlight> workSlot;

    private final AsyncRecordHandler<K, V> asyncHandler;
    private final int capacity;
    private final OwnedPartitions<TopicPartition, ConsumerRecord<ByteBuffer, ByteBuffer>> owned;
    private final LinkedBlockingQueue<Outcome> outcomes = new LinkedBlockingQueue<>();
    /** Tickets handed out and not back yet (handler calls and dead letters), stale ones included. */
    private int outstanding;
    /**
     * Per partition: tickets of a progress let go (lost, assigned anew, reset, fetched again) still out. The partition's
     * current progress dispatches nothing until they are back: two calls of one partition never run at once in a
     * worker, across its ownerships too (docs/parallel.md, "Ownership").
     */
    private final Map<TopicPartition, Integer> stale = new HashMap<>();

    private volatile boolean polling;
    /** The last {@link #pump} stopped at its inline budget with records ready: the next poll does not wait. */
    private boolean more;

    private final AtomicBoolean woken = new AtomicBoolean();
    /**
     * Attempts made before a partition stopped at a record (STOP_PARTITION): after a resume the policy counts afresh,
     * as it did when the record was fetched again.
     */
    private final Map<TopicPartition, Map<Long, Integer>> attemptBase = new HashMap<>();
    /** Records handled per topic since the metrics were last told (a counter each: no boxing per record). */
    private final Map<String, int[]> processed = new HashMap<>();
    /** The tickets of one {@link #pump} round and their partitions, before they start (reused: polling thread). */
    private final List<TopicPartition> startPartitions = new ArrayList<>();

    private final List<Ticket<ConsumerRecord<ByteBuffer, ByteBuffer>>> startTickets = new ArrayList<>();
    private final BiConsumer<TopicPartition, Ticket<ConsumerRecord<ByteBuffer, ByteBuffer>>> toStart = (tp, t) -> {
        startPartitions.add(tp);
        startTickets.add(t);
    };
    /**
     * The token of the last handler call: one {@code OptionalLong} per ownership, not per record. Read and written by
     * whichever thread makes the call, unsynchronized on purpose: an {@code OptionalLong} is immutable (final fields),
     * so a thread sees either one that is whole or another, and checks its value.
     */
    private OptionalLong lastToken = OptionalLong.empty();

    private final FailureLog failures;
    /**
     * Manual acknowledgements: per partition, the position to commit (last record acknowledged + 1, or where its
     * progress started); the progress's low-water mark caps it. Null when off.
     */
    private final Map<TopicPartition, Long> acked;
    /** The clock and the waits of the drains ({@code REAL} but in the simulator). */
    private final KafkaClients clients;

    /**
     * The calls of the batch handler and of the transactional mode (a run of a partition's records at a time, on the
     * polling thread); null for the record and asynchronous handlers.
     */
    private final SerialCalls<K, V> serial;
    /** The run {@link #serial} is handed (reused: polling thread). */
    private final List<ConsumerRecord<ByteBuffer, ByteBuffer>> run = new ArrayList<>();
    /**
     * The transactional mode: Kafka transactions commit the consumer's position, not the progress ({@code
     * ProgressCommits} refuses it), so before every poll the records the progress holds and has not done are handed
     * back to the consumer ({@link #handBack()}): the position is never past a record not done.
     */
    private final boolean positionCommits;
    /**
     * {@link #serial}'s partitions whose first record not done waits for its next attempt (ticker nanos): not run,
     * and not fetched, until then; the worker polls meanwhile.
     */
    private final Map<TopicPartition, Long> retries = new HashMap<>();

    ProgressDispatch(
            ContainerConfig<K, V> config,
            DeadLetterPublisher publisher,
            Deserializer<K> keyDeserializer,
            Deserializer<V> valueDeserializer,
            Control control,
            Executor work,
            InFlight inlineSlot,
            ThreadLocal<InFlight> workSlot) {
        this(
                config,
                publisher,
                keyDeserializer,
                valueDeserializer,
                control,
                work,
                inlineSlot,
                workSlot,
                KafkaClients.REAL,
                null);
    }

    /**
     * {@code clients}: the clock and the waits of the drains (the simulator's in kafka-adapter's simulation);
     * {@code output}: the transactional mode's sender (null when off).
     */
    ProgressDispatch(
            ContainerConfig<K, V> config,
            DeadLetterPublisher publisher,
            Deserializer<K> keyDeserializer,
            Deserializer<V> valueDeserializer,
            Control control,
            Executor work,
            InFlight inlineSlot,
            ThreadLocal<InFlight> workSlot,
            KafkaClients clients,
            TransactionalOutput output) {
        this.clients = clients;
        this.config = config;
        this.publisher = publisher;
        this.keyDeserializer = keyDeserializer;
        this.valueDeserializer = valueDeserializer;
        this.control = control;
        this.work = work;
        this.inlineSlot = inlineSlot;
        this.workSlot = workSlot;
        this.asyncHandler = config.asyncHandler();
        this.capacity = config.parallelism();
        this.owned = new OwnedPartitions<>(Ordering.valueOf(config.ordering().name()), config.limits());
        this.failures = new FailureLog(config.ticker());
        this.acked = config.manualAcks() ? new HashMap<>() : null;
        this.positionCommits = output != null;
        boolean serialCalls = config.batchHandler() != null || output != null;
        if (serialCalls && (work != null || asyncHandler != null || capacity != 1)) {
            throw new IllegalArgumentException("the batch handler and the transactional mode run with parallelism 1 "
                    + "on the polling thread only");
        }
        this.serial = serialCalls
                ? new SerialCalls<>(
                        config, publisher, keyDeserializer, valueDeserializer, control, output, inlineSlot, failures)
                : null;
    }

    // ------------------------------------------------------------------ fetching

    /** Takes a poll's records; a partition's progress starts at its first record after an assignment or a reset. */
    void fetched(ConsumerRecords<ByteBuffer, ByteBuffer> records) {
        for (TopicPartition tp : records.partitions()) {
            List<ConsumerRecord<ByteBuffer, ByteBuffer>> list = records.records(tp);
            if (list.isEmpty()) {
                continue;
            }
            long first = list.get(0).offset();
            Optional<PartitionProgress<ConsumerRecord<ByteBuffer, ByteBuffer>>> p = owned.get(tp);
            if (p.isPresent()) {
                try {
                    p.get().append(list, RAW); // the records as fetched: nothing made per record
                    continue;
                } catch (IllegalArgumentException e) { // moved back (a seek): what was fetched before is let go
                    LOG.atLevel(positionCommits ? Level.DEBUG : Level.INFO) // (transactional: an abort's rewind)
                            .log(
                                    "{} fetched again from offset {}: its progress restarts there ({})",
                                    tp,
                                    first,
                                    e.getMessage());
                    forget(tp);
                }
            }
            PartitionProgress<ConsumerRecord<ByteBuffer, ByteBuffer>> fresh =
                    owned.assigned(tp, control.token(tp), OffsetProgress.at(first));
            fresh.append(list, RAW);
            started(tp, first);
            commit(tp, fresh.snapshot()); // from now on, never the position (it runs ahead)
        }
    }

    // ------------------------------------------------------------------ the polling thread's round

    /**
     * Applies the outcomes that came back, then dispatches to the free capacity from the partitions {@code held} does
     * not hold; inline, runs those calls at once and goes on (up to {@link #INLINE_BUDGET} calls). Hands the moved
     * low-water marks to the commit.
     */
    void pump(Predicate<TopicPartition> held) throws InterruptedException {
        int budget = INLINE_BUDGET;
        more = false;
        if (serial != null) {
            pumpSerial(held, budget);
            return;
        }
        Predicate<TopicPartition> eligible = tp -> !held.test(tp) && !waitsForStale(tp);
        boolean inline = work == null && asyncHandler == null;
        while (true) {
            applyOutcomes();
            int free = capacity - outstanding;
            if (free <= 0) {
                break;
            }
            if (inline) {
                int ran = runInline(held, eligible, budget);
                if (ran > 0) {
                    if ((budget -= ran) <= 0) {
                        more = true;
                        break;
                    }
                    continue;
                }
            }
            int n = owned.dispatch(free, config.ticker().nanoTime(), eligible, toStart);
            if (n == 0) {
                break;
            }
            try {
                for (int i = 0; i < n; i++) {
                    start(startPartitions.get(i), startTickets.get(i));
                }
            } finally {
                startPartitions.clear();
                startTickets.clear();
            }
            if (work != null || asyncHandler != null) {
                break; // (no outcome is applied after the last dispatch: a freed lane waits for the next round)
            }
            if ((budget -= n) <= 0) {
                more = true; // inline: the next poll must not wait, records are ready
                break;
            }
        }
        handOverCommits();
        flushProcessed();
    }

    /**
     * {@link #pump} for {@link #serial}: runs of the partitions in turn, up to {@code budget} records; then the commits,
     * and in the transactional mode the hand-back of what was not done.
     */
    private void pumpSerial(Predicate<TopicPartition> held, int budget) throws InterruptedException {
        // A retry that comes due while this round runs others waits for the next round: after a poll, which serves
        // the ownership changes first (a partition lost meanwhile is not run again under its old claim).
        long now = config.ticker().nanoTime();
        Predicate<TopicPartition> eligible = tp -> !held.test(tp) && !waitsForStale(tp) && !waitsForRetry(tp, now);
        for (int left = budget; ; ) {
            if (left <= 0) {
                more = true;
                break;
            }
            TopicPartition tp = owned.nextRunnable(eligible);
            if (tp == null) {
                break;
            }
            PartitionProgress<ConsumerRecord<ByteBuffer, ByteBuffer>> p = owned.runnableProgress();
            try {
                p.runnable(left, run); // (a batch: what the progress holds, up to the budget's records)
                serial.run(tp, p, run, held, token(p.epoch()));
            } finally {
                run.clear();
                if (serial.handled > 0) {
                    processed.computeIfAbsent(tp.topic(), x -> new int[1])[0] += serial.handled;
                }
            }
            left -= Math.max(1, serial.ran);
            if (serial.rewound) { // the consumer went back to where the transaction began: what was done is undone
                owned.gone(tp);
            }
            if (serial.retryAt != -1) {
                retries.put(tp, serial.retryAt);
            }
        }
        handOverCommits();
        flushProcessed();
        handBack();
    }

    /** Whether {@code tp}'s first record not done waits for its next attempt at {@code now} (forgotten once due). */
    private boolean waitsForRetry(TopicPartition tp, long now) {
        if (retries.isEmpty()) {
            return false;
        }
        Long due = retries.get(tp);
        if (due == null) {
            return false;
        }
        if (due - now > 0) {
            return true;
        }
        retries.remove(tp);
        return false;
    }

    /**
     * The transactional mode, before a poll and before the consumer closes: every partition whose progress holds records
     * not done is handed back to its lowest one (the consumer fetches them again) and its progress let go, so the
     * position a Kafka transaction commits is never past a record not done. Nothing otherwise.
     */
    void handBack() {
        if (!positionCommits) {
            return;
        }
        for (TopicPartition tp : List.copyOf(owned.partitions())) {
            owned.get(tp).ifPresent(p -> {
                if (p.heldRecords() > 0 && !p.isLost()) {
                    try {
                        control.handBack(tp, p.lowWater());
                    } catch (IllegalStateException e) { // no longer owned: nothing commits it
                        LOG.debug("{} not handed back: {}", tp, e.getMessage());
                    }
                    owned.gone(tp);
                }
            });
        }
    }

    /** Before a poll: the poll's timeout (0 when outcomes wait; up to the next retry due); wake-ups end it from now. */
    Duration enterPoll(Duration max, Predicate<TopicPartition> held) {
        woken.set(false);
        polling = true;
        if (more || !outcomes.isEmpty()) {
            return Duration.ZERO;
        }
        OptionalLong due = owned.nextRetryAt(tp -> !held.test(tp) && !waitsForStale(tp));
        for (Map.Entry<TopicPartition, Long> r : retries.entrySet()) {
            if (!held.test(r.getKey()) && (due.isEmpty() || r.getValue() - due.getAsLong() < 0)) {
                due = OptionalLong.of(r.getValue());
            }
        }
        if (due.isEmpty()) {
            return max;
        }
        long left = due.getAsLong() - config.ticker().nanoTime();
        return Duration.ofNanos(Math.max(1_000_000, Math.min(max.toNanos(), left)));
    }

    void leftPoll() {
        polling = false;
    }

    /** The partitions whose fetching is to pause now: buffer caps, end of span, stopped for a handover. */
    Set<TopicPartition> pauses() {
        Set<TopicPartition> out = new HashSet<>();
        owned.pauses().forEach((tp, pause) -> {
            if (pause) {
                out.add(tp);
            }
        });
        if (!retries.isEmpty()) { // waiting for a retry: not fetched meanwhile (a retried batch stays one fetch's)
            long now = config.ticker().nanoTime();
            retries.forEach((tp, due) -> {
                if (due - now > 0) {
                    out.add(tp);
                }
            });
        }
        return out;
    }

    int outstanding() {
        return outstanding;
    }

    // ------------------------------------------------------------------ ownership

    /**
     * A graceful revocation: the partitions start nothing more; what they have in flight completes (the others go on
     * being dispatched meanwhile), up to {@code timeout}; their final low-water marks go to the commit that releases
     * them, and their progress is let go.
     */
    void revoking(Collection<TopicPartition> partitions, Duration timeout, Predicate<TopicPartition> held)
            throws InterruptedException {
        List<TopicPartition> mine = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            if (owned.revoking(tp).isPresent()) {
                mine.add(tp);
            }
        }
        if (mine.isEmpty()) {
            return;
        }
        long deadline = clients.nanoTime() + timeout.toNanos();
        if (work != null || asyncHandler != null) {
            pump(held); // the partitions that stay go on meanwhile: a handover does not pause them
        }
        while (inFlight(mine) > 0) {
            long left = deadline - clients.nanoTime();
            Outcome o = left > 0 ? clients.poll(outcomes, left) : null;
            if (o == null) {
                LOG.warn(
                        "{} record(s) of revoked {} still in flight after {} ms; released without them (the next "
                                + "owner runs them again)",
                        inFlight(mine),
                        mine,
                        timeout.toMillis());
                break;
            }
            apply(o);
            if (work != null || asyncHandler != null) {
                pump(held); // the partitions that stay are not paused by a handover
            }
        }
        applyOutcomes();
        for (TopicPartition tp : mine) {
            owned.get(tp).ifPresent(p -> commit(tp, p.snapshot())); // written with the release
            forget(tp);
        }
    }

    private int inFlight(List<TopicPartition> partitions) {
        int n = 0;
        for (TopicPartition tp : partitions) {
            n += owned.get(tp).map(PartitionProgress::inFlight).orElse(0);
        }
        return n;
    }

    /**
     * Lost, assigned anew, or reset by an operator: the progress is let go; its outcomes are dropped from now on, and
     * until the last of its calls is back the partition's next progress dispatches nothing.
     */
    void forget(TopicPartition tp) {
        int out = owned.get(tp).map(PartitionProgress::inFlight).orElse(0);
        if (out > 0) {
            stale.merge(tp, out, Integer::sum);
        }
        owned.gone(tp);
        attemptBase.remove(tp);
        retries.remove(tp);
        if (acked != null) {
            acked.remove(tp);
        }
    }

    /** Whether calls of a progress of {@code tp} let go are still out (its current progress waits for them). */
    boolean waitsForStale(TopicPartition tp) {
        return !stale.isEmpty() && stale.containsKey(tp);
    }

    /** A ticket came back; one not in flight in the partition's current progress was of a progress let go. */
    private void returned(TopicPartition tp, Ticket<ConsumerRecord<ByteBuffer, ByteBuffer>> t) {
        if (!stale.isEmpty() && !owned.isCurrent(tp, t)) {
            stale.computeIfPresent(tp, (x, n) -> n > 1 ? n - 1 : null);
        }
    }

    /**
     * Claimed (or adopted after an operator's change): the progress starts from what the store holds, and commits
     * write it from now on (nothing done is lost to a commit of the position before the first fetch). Without a
     * stored offset it starts at the first record fetched.
     */
    void assigned(TopicPartition tp) {
        forget(tp);
        if (positionCommits) {
            return; // the claim placed the consumer at the offset of record: the progress starts at its first record
        }
        OffsetProgress from = control.resumeFrom(tp);
        if (from != null) {
            PartitionProgress<ConsumerRecord<ByteBuffer, ByteBuffer>> p = owned.assigned(tp, control.token(tp), from);
            if (p.droppedOnResume() > 0) {
                LOG.info(
                        "{} offset(s) of {} recorded as done beyond this member's span run again",
                        p.droppedOnResume(),
                        tp);
            }
            started(tp, from.lowWater());
            commit(tp, p.snapshot());
        }
    }

    /**
     * Stopping: nothing more starts; what is in flight completes up to {@code timeout}; the final low-water marks go
     * to the commit. Returns whether everything came back.
     */
    boolean drain(Duration timeout) throws InterruptedException {
        for (TopicPartition tp : List.copyOf(owned.partitions())) {
            owned.revoking(tp);
        }
        long deadline = clients.nanoTime() + timeout.toNanos();
        while (outstanding > 0) {
            long left = deadline - clients.nanoTime();
            Outcome o = left > 0 ? clients.poll(outcomes, left) : null;
            if (o == null) {
                LOG.warn(
                        "{} record(s) still in flight after the stop deadline of {} ms; committed below them (the "
                                + "next owner runs them again)",
                        outstanding,
                        timeout.toMillis());
                break;
            }
            apply(o);
        }
        handOverCommits();
        flushProcessed();
        handBack();
        return outstanding == 0;
    }

    // ------------------------------------------------------------------ dispatching a ticket

    private void start(TopicPartition tp, Ticket<ConsumerRecord<ByteBuffer, ByteBuffer>> t)
            throws InterruptedException {
        ConsumerRecord<K, V> record;
        try {
            record = deserialize(t.record());
        } catch (RuntimeException e) {
            recover(tp, t, e, 0, config.errorPolicy().deserializationFailure());
            return;
        }
        outstanding++;
        if (asyncHandler != null) {
            callAsync(tp, t, record);
        } else if (work == null) {
            apply(call(tp, t, record, inlineSlot)); // inline: no queue
        } else {
            work.execute(() -> enqueue(call(tp, t, record, workSlot.get())));
        }
    }

    /**
     * Inline calls without tickets (parallelism 1, the record handler, the polling thread): a run of one partition's
     * records, the next in turn with a record {@link PartitionProgress#runnable()}, each called and completed before the
     * next — what dispatching them one ticket at a time would do, without a ticket and an outcome per record. The run
     * ends at the budget, when the partition is held (a handler paused it, the container stops), when it has nothing
     * more to run, or at a record that fails: that one takes its ticket and goes the error policy's way, as a
     * dispatched one does. Returns the calls made (0: nothing ran this way; the tickets' path goes on).
     */
    private int runInline(Predicate<TopicPartition> held, Predicate<TopicPartition> eligible, int budget)
            throws InterruptedException {
        TopicPartition tp = owned.nextRunnable(eligible);
        if (tp == null || (!attemptBase.isEmpty() && attemptBase.containsKey(tp))) {
            return 0;
        }
        PartitionProgress<ConsumerRecord<ByteBuffer, ByteBuffer>> p = owned.runnableProgress();
        OptionalLong token = token(p.epoch());
        CurrentRecord current = inlineSlot == null ? CurrentRecord.ofThread() : inlineSlot.currentRecord();
        int calls = 0;
        int handled = 0;
        long failed = -1;
        Throwable failure = null;
        boolean undeserializable = false;
        for (ConsumerRecord<ByteBuffer, ByteBuffer> raw; calls < budget && (raw = p.runnable()) != null; ) {
            if (calls > 0 && held.test(tp)) {
                break; // paused or stopped by a handler, or the container stops
            }
            calls++;
            long offset = raw.offset();
            failed = offset;
            ConsumerRecord<K, V> record;
            try {
                record = deserialize(raw);
            } catch (RuntimeException e) {
                failure = e;
                undeserializable = true;
                break;
            }
            failure = callInline(tp, offset, record, current, token);
            if (failure != null) {
                break;
            }
            p.completeRunnable();
            handled++;
            control.outcome(tp, offset, null);
        }
        if (handled > 0) {
            processed.computeIfAbsent(tp.topic(), x -> new int[1])[0] += handled;
        }
        if (failure != null) { // the record that failed: its ticket, as dispatched
            List<Ticket<ConsumerRecord<ByteBuffer, ByteBuffer>>> one =
                    p.dispatch(1, config.ticker().nanoTime());
            Ticket<ConsumerRecord<ByteBuffer, ByteBuffer>> t = one.isEmpty() ? null : one.get(0);
            if (t == null || t.offset() != failed) {
                throw new IllegalStateException(
                        tp + ": the record at offset " + failed + " failed inline, but its " + "progress hands out "
                                + t,
                        failure);
            }
            if (undeserializable) {
                recover(tp, t, failure, 0, config.errorPolicy().deserializationFailure());
            } else {
                outstanding++;
                apply(new Outcome(tp, t, failure instanceof Error ? Kind.FATAL : Kind.FAILED, failure, null));
            }
        }
        return calls;
    }

    /** An inline call of {@link #runInline}: returns null when handled, else what the handler threw. */
    private Throwable callInline(
            TopicPartition tp, long offset, ConsumerRecord<K, V> record, CurrentRecord current, OptionalLong token) {
        InFlight slot = inlineSlot;
        if (slot != null) {
            slot.begin(tp, offset);
        }
        current.set(tp, token);
        if (acked != null) {
            current.manualAcks();
        }
        try {
            config.recordHandler().handle(record);
            return acked == null ? null : acks(tp, offset, current);
        } catch (Exception | Error e) {
            if (acked != null) {
                acks(tp, offset, current); // an ack before the throw counts (a nack does not: the failure wins)
            }
            return e;
        } finally {
            ended(tp, offset, slot, current);
        }
    }

    /** A handler call, on the polling thread or a work thread; returns its outcome. */
    private Outcome call(
            TopicPartition tp,
            Ticket<ConsumerRecord<ByteBuffer, ByteBuffer>> t,
            ConsumerRecord<K, V> record,
            InFlight slot) {
        Outcome o;
        if (slot != null) {
            slot.begin(tp, t.offset());
        }
        CurrentRecord current = slot == null ? CurrentRecord.ofThread() : slot.currentRecord();
        current.set(tp, token(t));
        if (acked != null) {
            current.manualAcks();
        }
        try {
            config.recordHandler().handle(record);
            Redelivery nack = acked == null ? null : acks(tp, t.offset(), current);
            o = new Outcome(tp, t, nack == null ? Kind.HANDLED : Kind.FAILED, nack, null);
        } catch (Exception e) {
            if (acked != null) {
                acks(tp, t.offset(), current);
            }
            o = new Outcome(tp, t, Kind.FAILED, e, null);
        } catch (Error e) {
            o = new Outcome(tp, t, Kind.FATAL, e, null);
        } finally {
            ended(tp, t.offset(), slot, current);
        }
        return o;
    }

    /** After a handler call: the watchdog's slot and the thread's current record cleared, the interrupt flag too. */
    private void ended(TopicPartition tp, long offset, InFlight slot, CurrentRecord current) {
        ended(tp, offset, slot, current, config.ticker());
    }

    /** As {@link #ended(TopicPartition, long, InFlight, CurrentRecord)}, for {@link SerialCalls} too. */
    static void ended(TopicPartition tp, long offset, InFlight slot, CurrentRecord current, Ticker ticker) {
        current.set(null, null);
        if (slot != null && slot.end() >= 0) {
            long ms = (ticker.nanoTime() - slot.reportedSince) / 1_000_000;
            LOG.info(
                    "handler on {} at offset {} finished after about {} ms (reported by the watchdog)", tp, offset, ms);
        }
        if (Thread.interrupted()) { // the handler's (the container stops through stop(), not interrupts)
            LOG.debug(
                    "the handler returned from {} at offset {} with the thread's interrupt flag set; cleared",
                    tp,
                    offset);
        }
    }

    private void callAsync(
            TopicPartition tp, Ticket<ConsumerRecord<ByteBuffer, ByteBuffer>> t, ConsumerRecord<K, V> record) {
        CompletionStage<Void> stage;
        CurrentRecord.handling(tp, token(t));
        try {
            stage = asyncHandler.handle(record);
            if (stage == null) {
                throw new NullPointerException("the asynchronous handler returned null for " + tp + " at offset "
                        + t.offset() + " (return a CompletionStage)");
            }
        } catch (Exception e) {
            enqueue(new Outcome(tp, t, Kind.FAILED, e, null));
            return;
        } catch (Error e) {
            enqueue(new Outcome(tp, t, Kind.FATAL, e, null));
            return;
        } finally {
            CurrentRecord.handling(null);
        }
        stage.whenComplete((v, e) -> {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            enqueue(
                    cause == null
                            ? new Outcome(tp, t, Kind.HANDLED, null, null)
                            : cause instanceof Error err
                                    ? new Outcome(tp, t, Kind.FATAL, err, null)
                                    : new Outcome(tp, t, Kind.FAILED, cause, null));
        });
    }

    /** The token a handler call sees ({@code HandlerContext.fencingToken()}); the thread of the call. */
    private OptionalLong token(Ticket<?> t) {
        return token(t.epoch());
    }

    private OptionalLong token(long epoch) {
        if (epoch < 0) {
            return OptionalLong.empty();
        }
        OptionalLong last = lastToken;
        if (last.isPresent() && last.getAsLong() == epoch) {
            return last;
        }
        OptionalLong now = OptionalLong.of(epoch);
        lastToken = now;
        return now;
    }

    /** Any thread: an outcome for the polling thread; ends its poll's wait if it is in one. */
    private void enqueue(Outcome o) {
        outcomes.add(o);
        if (polling && woken.compareAndSet(false, true)) {
            control.wakeup();
        }
    }

    // ------------------------------------------------------------------ outcomes (polling thread)

    private void applyOutcomes() throws InterruptedException {
        for (Outcome o; (o = outcomes.poll()) != null; ) {
            apply(o);
        }
    }

    private void apply(Outcome o) throws InterruptedException {
        outstanding--;
        TopicPartition tp = o.tp();
        Ticket<ConsumerRecord<ByteBuffer, ByteBuffer>> t = o.ticket();
        returned(tp, t);
        switch (o.kind()) {
            case HANDLED -> {
                if (complete(tp, t)) {
                    processed.computeIfAbsent(tp.topic(), x -> new int[1])[0]++;
                    control.outcome(tp, t.offset(), null);
                }
            }
            case FAILED -> {
                if (owned.isCurrent(tp, t) && o.failure() instanceof Redelivery r) {
                    redeliver(tp, t, r);
                } else if (owned.isCurrent(tp, t)) {
                    failed(tp, t, o.failure());
                } else {
                    owned.complete(tp, t); // (dropped and counted)
                }
            }
            case RECOVERED -> {
                if (complete(tp, t)) {
                    config.metrics().recovered(config.group(), tp.topic(), Recovery.DEAD_LETTER);
                    control.outcome(tp, t.offset(), o.failure());
                }
            }
            case NOT_RECOVERED -> {
                if (owned.isCurrent(tp, t)) {
                    config.metrics().recovered(config.group(), tp.topic(), Recovery.STOP_PARTITION);
                    stop(tp, t, o.reason());
                } else {
                    owned.complete(tp, t);
                }
            }
            case FATAL -> {
                if (o.failure() instanceof Error e) {
                    throw e;
                }
                throw new IllegalStateException(o.failure());
            }
            default -> throw new IllegalStateException("unknown outcome " + o.kind());
        }
    }

    private boolean complete(TopicPartition tp, Ticket<ConsumerRecord<ByteBuffer, ByteBuffer>> t) {
        if (!owned.complete(tp, t)) {
            return false;
        }
        Map<Long, Integer> base = attemptBase.isEmpty() ? null : attemptBase.get(tp);
        if (base != null && base.remove(t.offset()) != null && base.isEmpty()) {
            attemptBase.remove(tp);
        }
        return true;
    }

    /** A failed attempt: retried after the backoff (its lane waits), or recovered after the policy's last attempt. */
    private void failed(TopicPartition tp, Ticket<ConsumerRecord<ByteBuffer, ByteBuffer>> t, Throwable cause)
            throws InterruptedException {
        config.metrics().handlerFailed(config.group(), tp.topic(), cause.getClass());
        ErrorAction action = config.errorPolicy().actionFor(cause);
        Map<Long, Integer> base = attemptBase.get(tp);
        int attempt = t.attempt() - (base == null ? 0 : base.getOrDefault(t.offset(), 0));
        failures.failed(tp, t.offset(), attempt, action.maxAttempts(), cause);
        if (attempt < action.maxAttempts()) {
            Duration delay = action.backoff().delayAfter(attempt);
            LOG.debug(
                    "{}@{} failed (attempt {} of {}), retrying in {} ms: {}",
                    tp,
                    t.offset(),
                    attempt,
                    action.maxAttempts(),
                    delay.toMillis(),
                    cause.toString());
            if (config.sleeper() != null && !delay.isZero()) {
                config.sleeper().sleep(delay); // the test seam: waited in place
                delay = Duration.ZERO;
            }
            owned.retryLater(tp, t, config.ticker().nanoTime() + delay.toNanos());
            return;
        }
        recover(tp, t, cause, attempt, action.recovery());
    }

    /** After the last attempt ({@code attempts} 0: the record does not deserialize). */
    private void recover(
            TopicPartition tp,
            Ticket<ConsumerRecord<ByteBuffer, ByteBuffer>> t,
            Throwable cause,
            int attempts,
            Recovery recovery)
            throws InterruptedException {
        ConsumerRecord<ByteBuffer, ByteBuffer> raw = t.record();
        String after = attempts == 0 ? "it does not deserialize" : "after " + attempts + " attempt(s)";
        switch (recovery) {
            case SKIP -> {
                LOG.warn(
                        "skipped {}-{}@{} {}: {}", raw.topic(), raw.partition(), raw.offset(), after, cause.toString());
                if (complete(tp, t)) {
                    config.metrics().recovered(config.group(), tp.topic(), Recovery.SKIP);
                    control.outcome(tp, t.offset(), cause);
                }
            }
            case STOP_PARTITION -> {
                config.metrics().recovered(config.group(), tp.topic(), Recovery.STOP_PARTITION);
                stop(tp, t, FailureLog.reason(cause) + " (" + after + ")");
            }
            case DEAD_LETTER -> {
                outstanding++;
                if (work == null) {
                    deadLetter(tp, t, cause, attempts, after);
                } else {
                    work.execute(() -> deadLetter(tp, t, cause, attempts, after));
                }
            }
            default -> throw new IllegalStateException("unknown recovery " + recovery);
        }
    }

    /** Publishes the dead letter (polling or work thread); its outcome goes to the queue. */
    private void deadLetter(
            TopicPartition tp,
            Ticket<ConsumerRecord<ByteBuffer, ByteBuffer>> t,
            Throwable cause,
            int attempts,
            String after) {
        ConsumerRecord<ByteBuffer, ByteBuffer> raw = t.record();
        Outcome o;
        try {
            String topic = publisher.publish(raw, cause, attempts);
            LOG.warn(
                    "{}-{}@{} dead-lettered to {} {}: {}",
                    raw.topic(),
                    raw.partition(),
                    raw.offset(),
                    topic,
                    after,
                    cause.toString());
            try {
                config.listener().deadLettered(DeadLetterPublisher.bytes(raw), topic, cause);
            } catch (RuntimeException e) {
                LOG.warn("container listener threw on deadLettered: {}", e.toString());
            }
            o = new Outcome(tp, t, Kind.RECOVERED, cause, null);
        } catch (DeadLetterPublisher.DeadLetterException e) {
            o = new Outcome(
                    tp,
                    t,
                    Kind.NOT_RECOVERED,
                    cause,
                    "dead-letter " + e.getMessage() + "; record failed with " + cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            o = new Outcome(tp, t, Kind.NOT_RECOVERED, cause, "dead-letter interrupted; record failed with " + cause);
        } catch (RuntimeException | Error e) {
            o = new Outcome(tp, t, Kind.FATAL, e, null);
        }
        enqueue(o);
    }

    /** The partition stops at the record: it waits (its attempts forgotten) until the partition is resumed. */
    private void stop(TopicPartition tp, Ticket<ConsumerRecord<ByteBuffer, ByteBuffer>> t, String reason) {
        attemptBase.computeIfAbsent(tp, x -> new HashMap<>()).put(t.offset(), t.attempt());
        owned.retryLater(tp, t, config.ticker().nanoTime());
        control.stopPartition(tp, t.offset(), reason);
    }

    // ------------------------------------------------------------------ commits and metrics

    private void handOverCommits() {
        Map<TopicPartition, OffsetProgress> owed = owned.owed();
        if (!owed.isEmpty()) {
            owed.forEach(this::commit);
            owned.committed(owed); // (the consumer writes the latest at its next commit point)
        }
    }

    /** A partition's progress starts at {@code offset}: with manual acknowledgements, what is committed till an ack. */
    private void started(TopicPartition tp, long offset) {
        if (acked != null) {
            acked.put(tp, offset);
        }
    }

    /** Commits of {@code tp} write {@code p}; with manual acknowledgements, up to its last record acknowledged. */
    private void commit(TopicPartition tp, OffsetProgress p) {
        if (positionCommits) {
            return; // the Kafka transactions commit the position ({@link #handBack})
        }
        if (acked == null) {
            control.commit(tp, p);
            return;
        }
        Long at = acked.get(tp);
        long position = at == null ? p.lowWater() : Math.min(at, p.lowWater()); // never above what was handled
        control.commit(tp, position == p.lowWater() ? p : OffsetProgress.at(position));
    }

    /**
     * After a handler call with manual acknowledgements: records its ack; returns its nack as a {@link Redelivery}
     * (null when none). Polling thread (parallelism 1).
     */
    private Redelivery acks(TopicPartition tp, long offset, CurrentRecord current) {
        if (current.takeAcknowledged()) {
            acked.put(tp, offset + 1);
        }
        Duration nack = current.takeNack();
        return nack == null ? null : new Redelivery(nack);
    }

    /** A nacked record runs again after its sleep; its attempts start afresh (a nack is no failed attempt). */
    private void redeliver(TopicPartition tp, Ticket<ConsumerRecord<ByteBuffer, ByteBuffer>> t, Redelivery r) {
        LOG.debug("{}@{} nacked: runs again in {} ms", tp, t.offset(), r.sleep.toMillis());
        attemptBase.computeIfAbsent(tp, x -> new HashMap<>()).put(t.offset(), t.attempt());
        owned.retryLater(tp, t, config.ticker().nanoTime() + r.sleep.toNanos());
    }

    private void flushProcessed() {
        if (!processed.isEmpty()) {
            processed.forEach((topic, n) -> config.metrics().processed(config.group(), topic, n[0]));
            processed.clear();
        }
    }

    private ConsumerRecord<K, V> deserialize(ConsumerRecord<ByteBuffer, ByteBuffer> raw) {
        return InPlaceDeserializer.deserialize(keyDeserializer, valueDeserializer, raw);
    }
}
