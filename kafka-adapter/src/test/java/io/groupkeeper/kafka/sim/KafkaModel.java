package io.groupkeeper.kafka.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A model of a Kafka cluster as the adapter sees it, for the seeded simulator: topics whose partitions are logs (a log
 * start and end), transactional ids with producer epochs, transactions that are open, committed or aborted, and the
 * groups' committed offsets. Its clients ({@link ModelConsumer}, {@link ModelProducer}, {@link ModelAdmin}) are as
 * unkind as the broker where it matters to the adapter:
 *
 * <ul>
 *   <li>a producer's {@code initTransactions()} bumps the id's epoch, aborts the open transaction of the previous
 *   epoch (its outputs never become visible, its pending group offsets are dropped) and fences every older producer of
 *   the id: their next send, {@code sendOffsetsToTransaction}, commit or abort throws {@code ProducerFencedException};</li>
 *   <li>a transaction's outputs and group offsets become visible together at its commit, never before
 *   ({@link #readCommitted});</li>
 *   <li>a read of a group's offsets sees the committed ones only, never an open transaction's;</li>
 *   <li>requests take simulated time ({@link Time#sleep}: other simulated threads run meanwhile), and a seeded share of
 *   them time out: some before they land, some after (the commit happened; the caller hears a timeout, and the
 *   producer must retry the commit: an abort then fails);</li>
 *   <li>a seeded share of sends is rejected (the transaction can then only abort), as a broker rejects a record.</li>
 * </ul>
 *
 * <p>Every call comes from one simulated thread at a time (the simulator runs one at a time), so nothing here locks.
 */
public final class KafkaModel {

    /** The simulated clock, and how a simulated thread waits on it while the rest of the world runs. */
    public interface Time {
        long millis();

        /** The calling simulated thread waits {@code millis} of simulated time (others run meanwhile). */
        void sleep(long millis);

        /**
         * The calling simulated thread waits until {@code until} completes or {@code millis} of simulated time pass; a
         * clock that cannot wait returns at once ({@link #waits()} false: a consumer's poll then answers at once).
         */
        default void sleep(long millis, java.util.concurrent.CompletableFuture<?> until) {
            sleep(millis);
        }

        /** Whether the calling thread can wait here (a simulated thread of the simulator): a poll waits then. */
        default boolean waits() {
            return false;
        }
    }

    /** Hears what the checkers need: each committed group offset (with the one before), each committed output. */
    public interface Observer {
        default void groupOffsetCommitted(String group, TopicPartition tp, long offset, Long before, String by) {}

        default void outputCommitted(TopicPartition out, Object key, Object value) {}
    }

    /**
     * The faults the model makes, as shares of the requests (0: never): timeouts before and after landing, rejected
     * sends, and slow requests (a round trip of up to {@code maxLatencyMillis}; the others answer at once).
     */
    public record Faults(
            double timeoutBeforeLanding,
            double timeoutAfterLanding,
            double rejectedSend,
            double slow,
            long maxLatencyMillis) {
        public static final Faults NONE = new Faults(0, 0, 0, 0, 0);
    }

    public enum TxnState {
        OPEN,
        COMMITTED,
        ABORTED
    }

    /** One record of a log: its value, when it was appended, and the transaction it belongs to (null: none). */
    public record Entry(TopicPartition tp, long offset, Object key, Object value, long timestamp, Txn txn) {
        boolean committed() {
            return txn == null || txn.state == TxnState.COMMITTED;
        }
    }

    static final class Log {
        final List<Entry> entries = new ArrayList<>();
        long start;

        long end() {
            return entries.size();
        }
    }

    /** One transaction of one producer epoch. */
    public final class Txn {
        final String transactionalId;
        final int epoch;
        TxnState state = TxnState.OPEN;
        final Map<String, Map<TopicPartition, OffsetAndMetadata>> offsets = new TreeMap<>();
        final List<Entry> outputs = new ArrayList<>();

        Txn(String transactionalId, int epoch) {
            this.transactionalId = transactionalId;
            this.epoch = epoch;
        }
    }

    /** A transactional id's broker side: its current epoch and open transaction. */
    static final class TransactionalId {
        int epoch = -1;
        Txn open;
    }

    private final Map<String, List<Log>> topics = new TreeMap<>();
    private final Map<String, TransactionalId> ids = new HashMap<>();
    private final Map<String, Map<TopicPartition, OffsetAndMetadata>> groups = new HashMap<>();
    private final Random random;
    private final Time time;
    private final Faults faults;
    private final List<Observer> observers = new ArrayList<>();
    private long landedLate;
    private long fencedCalls;
    private long abortedByInit;

    public KafkaModel(Random random, Time time, Faults faults) {
        this.random = random;
        this.time = time;
        this.faults = faults;
    }

    public void observe(Observer o) {
        observers.add(o);
    }

    // ------------------------------------------------------------------ topics and logs

    public void createTopic(String topic, int partitions) {
        List<Log> logs = topics.computeIfAbsent(topic, t -> new ArrayList<>());
        while (logs.size() < partitions) {
            logs.add(new Log());
        }
    }

    /** The topics' names. */
    public java.util.Set<String> topicNames() {
        return java.util.Set.copyOf(topics.keySet());
    }

    /** Completes (and is replaced) when a record becomes visible: a waiting poll looks again. */
    private java.util.concurrent.CompletableFuture<Void> appended = new java.util.concurrent.CompletableFuture<>();

    java.util.concurrent.CompletableFuture<Void> appended() {
        return appended;
    }

    private void visible() {
        java.util.concurrent.CompletableFuture<Void> was = appended;
        appended = new java.util.concurrent.CompletableFuture<>();
        was.complete(null);
    }

    Time time() {
        return time;
    }

    public Optional<Integer> partitions(String topic) {
        List<Log> logs = topics.get(topic);
        return logs == null ? Optional.empty() : Optional.of(logs.size());
    }

    Log log(TopicPartition tp) {
        List<Log> logs = topics.get(tp.topic());
        if (logs == null || tp.partition() >= logs.size()) {
            return null;
        }
        return logs.get(tp.partition());
    }

    /** A plain (non-transactional) record appended: visible at once. Returns its offset. */
    public long append(TopicPartition tp, Object key, Object value) {
        Log log = log(tp);
        Entry e = new Entry(tp, log.end(), key, value, time.millis(), null);
        log.entries.add(e);
        visible();
        return e.offset();
    }

    /** The log's records from offset 0 (those before the log start included: the caller checks). */
    List<Entry> entries(TopicPartition tp) {
        return log(tp).entries;
    }

    public long logStart(TopicPartition tp) {
        return log(tp).start;
    }

    public long logEnd(TopicPartition tp) {
        return log(tp).end();
    }

    /** Retention: the log's records before {@code offset} are gone. */
    public void deleteBefore(TopicPartition tp, long offset) {
        Log log = log(tp);
        log.start = Math.max(log.start, Math.min(offset, log.end()));
    }

    /** The records of {@code tp} a {@code read_committed} reader sees, in order. */
    public List<Entry> readCommitted(TopicPartition tp) {
        Log log = log(tp);
        List<Entry> out = new ArrayList<>();
        if (log == null) {
            return out;
        }
        for (Entry e : log.entries) {
            if (e.offset() >= log.start && e.committed()) {
                out.add(e);
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ groups

    /** {@code group}'s committed offset of {@code tp} (empty: none). */
    public Optional<OffsetAndMetadata> committed(String group, TopicPartition tp) {
        return Optional.ofNullable(groups.getOrDefault(group, Map.of()).get(tp));
    }

    // ------------------------------------------------------------------ transactions (the producers' broker side)

    /** Bumps the id's epoch, aborting the previous epoch's open transaction; returns the new epoch. */
    int initTransactions(String transactionalId) {
        TransactionalId id = ids.computeIfAbsent(transactionalId, k -> new TransactionalId());
        if (id.open != null) {
            abort(id.open);
            abortedByInit++;
            id.open = null;
        }
        return ++id.epoch;
    }

    /** The open transaction of {@code epoch}, begun if none; null if {@code epoch} is fenced. */
    Txn transaction(String transactionalId, int epoch) {
        TransactionalId id = ids.get(transactionalId);
        if (id == null || id.epoch != epoch) {
            fencedCalls++;
            return null;
        }
        if (id.open == null) {
            id.open = new Txn(transactionalId, epoch);
        }
        return id.open;
    }

    boolean fenced(String transactionalId, int epoch) {
        TransactionalId id = ids.get(transactionalId);
        boolean fenced = id == null || id.epoch != epoch;
        if (fenced) {
            fencedCalls++;
        }
        return fenced;
    }

    /** Whether {@code epoch} has an open transaction at the broker. */
    boolean isOpen(String transactionalId, int epoch) {
        TransactionalId id = ids.get(transactionalId);
        return id != null && id.epoch == epoch && id.open != null;
    }

    Entry appendTransactional(Txn txn, TopicPartition tp, Object key, Object value) {
        Log log = log(tp);
        Entry e = new Entry(tp, log.end(), key, value, time.millis(), txn);
        log.entries.add(e);
        txn.outputs.add(e);
        return e;
    }

    void commit(String transactionalId, int epoch) {
        TransactionalId id = ids.get(transactionalId);
        Txn txn = id.open;
        id.open = null;
        if (txn == null) {
            return; // nothing was sent: an empty transaction
        }
        txn.state = TxnState.COMMITTED;
        visible();
        txn.offsets.forEach((group, offsets) -> offsets.forEach((tp, o) -> {
            OffsetAndMetadata before =
                    groups.computeIfAbsent(group, g -> new HashMap<>()).put(tp, o);
            observers.forEach(obs -> obs.groupOffsetCommitted(
                    group, tp, o.offset(), before == null ? null : before.offset(), transactionalId));
        }));
        for (Entry e : txn.outputs) {
            observers.forEach(obs -> obs.outputCommitted(e.tp(), e.key(), e.value()));
        }
    }

    void abort(String transactionalId, int epoch) {
        TransactionalId id = ids.get(transactionalId);
        if (id != null && id.epoch == epoch && id.open != null) {
            abort(id.open);
            id.open = null;
        }
    }

    private void abort(Txn txn) {
        txn.state = TxnState.ABORTED;
    }

    // ------------------------------------------------------------------ time and faults

    /** A request's round trip: for a slow one, the calling simulated thread waits a seeded latency. */
    void roundTrip() {
        if (faults.maxLatencyMillis() > 0 && random.nextDouble() < faults.slow()) {
            time.sleep(1 + random.nextInt((int) faults.maxLatencyMillis()));
        }
    }

    boolean timesOutBeforeLanding() {
        return faults.timeoutBeforeLanding() > 0 && random.nextDouble() < faults.timeoutBeforeLanding();
    }

    boolean timesOutAfterLanding() {
        boolean late = faults.timeoutAfterLanding() > 0 && random.nextDouble() < faults.timeoutAfterLanding();
        if (late) {
            landedLate++;
        }
        return late;
    }

    boolean rejectsSend() {
        return faults.rejectedSend() > 0 && random.nextDouble() < faults.rejectedSend();
    }

    long millis() {
        return time.millis();
    }

    /** How many requests landed and then timed out for their caller. */
    public long landedLate() {
        return landedLate;
    }

    /** How many producer calls were refused as fenced. */
    public long fencedCalls() {
        return fencedCalls;
    }

    /** How many open transactions an {@code initTransactions()} aborted. */
    public long abortedByInit() {
        return abortedByInit;
    }
}
