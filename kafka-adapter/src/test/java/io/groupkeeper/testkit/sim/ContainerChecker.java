package io.groupkeeper.testkit.sim;

import io.groupkeeper.kafka.container.Ordering;
import io.groupkeeper.kafka.container.internal.progress.OffsetProgress;
import io.groupkeeper.kafka.container.internal.progress.ProgressCodec;
import io.groupkeeper.testkit.InMemoryZooKeeper;
import io.groupkeeper.testkit.ModelTransactions;
import io.groupkeeper.zkprotocol.internal.NodeCodec;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * What the listener container's users see besides {@link AdapterChecker}'s checks, judged as a
 * {@link ContainerSimulation} schedule runs:
 * <ul>
 *   <li><b>order</b>: in {@code KEY} ordering the records of one key, in {@code PARTITION} ordering the records of one
 *   partition, start one at a time in a member, across its ownerships too (a record of the lane starts only once the
 *   one before it ended), and in offset order within one ownership (at an offset not below the one before; a failed
 *   attempt's retry starts at the same offset). A call belongs to the ownership whose claim's fencing token it carries
 *   ({@code HandlerContext.fencingToken()}), not to the one the assignment hook heard last: a record dispatched just
 *   before a loss may start on its work thread after the hook heard the new claim. Not judged between members (a lost
 *   partition's records may still run while its next owner starts), nor across an operator's reset: the owner lets its
 *   progress go, and what still runs of it overlaps what starts from the reset point (one backward move of each lane
 *   per reset is excused, and an overlap with a record started before that move or before the reset, or within
 *   {@link #RESET_OVERLAP_MS} of the reset);</li>
 *   <li><b>progress never claims an unprocessed record</b>: every offset node a member writes holds a low-water mark
 *   below which every record was handled or dead-lettered (or skipped by an operator's reset before it was), and a done
 *   set whose every offset was handled or dead-lettered;</li>
 *   <li>{@link HandoverChecker}'s, told of the same calls and nodes: nothing named done runs again, a graceful handover
 *   replays none, the node's size stays within its bound.</li>
 * </ul>
 */
final class ContainerChecker {

    private static final long OPERATOR = 0;

    private final InMemoryZooKeeper zk;
    private final String group;
    private final String topic;
    private final Ordering ordering;
    private final AdapterChecker checker;
    private final SimLog log;
    /** Per partition: the records handled or dead-lettered. */
    private final Map<Integer, BitSet> processed = new HashMap<>();
    /** Per partition: the records an operator's reset skipped before they were processed. */
    private final Map<Integer, BitSet> excused = new HashMap<>();
    /** Per member and partition ("m:p"): its ownerships so far (a new one at each assignment; calls without a token). */
    private final Map<String, Integer> epochs = new HashMap<>();
    /** Per partition: the operator's resets so far. */
    private final Map<Integer, Integer> resets = new HashMap<>();
    /** Per partition: the values of the operator's resets so far, in order. */
    private final Map<Integer, List<Long>> resetValues = new HashMap<>();
    /** Per partition: when the operator last reset it (simulated ms). */
    private final Map<Integer, Long> lastResetAt = new HashMap<>();
    /**
     * How long after an operator's reset an overlap with a record started since is excused: the owner takes a reset up
     * within a commit interval once it hears of it (I4), later when its connection is cut or its polling thread stalls
     * (up to a few seconds in these schedules); what it started meanwhile runs on while it starts again from the reset
     * point (seed 34, KEY).
     */
    static final long RESET_OVERLAP_MS = 5_000;

    private final java.util.function.LongSupplier now;
    /** Per member, partition and lane ("m:p:lane"). */
    private final Map<String, Lane> lanes = new HashMap<>();

    private long handled;
    private long deadLettered;
    /**
     * Transactional mode: the partition's offset of record in Kafka (-1: none), where an aborted transaction rewinds
     * the partition to; null otherwise.
     */
    private java.util.function.IntToLongFunction kafkaOffset;

    private long rewoundByAborts;

    /** The handover and node checks. */
    private final HandoverChecker handovers;

    /** One lane of one member's partition: the last record started in its ownership, and those in flight. */
    private static final class Lane {
        /** The ownership of the last record started: its claim's token, else "h" and the hook's count. */
        String epoch = "";

        long last = -1;
        /** The resets of the partition this lane has used up (a backward move each). */
        int resetsUsed;
        /** Backward moves excused so far (an in-flight record started before the last one overlaps without fault). */
        int rewinds;
        /** In flight: offset to {the lane's rewinds, the partition's resets} when it started. */
        final Map<Long, int[]> inFlight = new HashMap<>();
    }

    ContainerChecker(
            InMemoryZooKeeper zk,
            String group,
            String topic,
            Ordering ordering,
            AdapterChecker checker,
            SimLog log,
            java.util.function.LongSupplier now) {
        this.now = now;
        this.zk = zk;
        this.group = group;
        this.topic = topic;
        this.ordering = ordering;
        this.checker = checker;
        this.log = log;
        this.handovers = new HandoverChecker(zk, group, topic, this::violation);
        // The model has one observer of transactions: this one replaces the AdapterChecker's, and hands every
        // transaction to it first (its ZooKeeper checks: the offset never backwards but by an operator, handovers).
        ModelTransactions.observe(zk, (session, zxid, writes) -> {
            checker.applied(session, zxid, writes);
            applied(session, zxid, writes);
        });
    }

    long handled() {
        return handled;
    }

    /**
     * The transactional mode: an aborted transaction (an output rejected, a commit that failed, a fenced producer)
     * moves the partition back to where the transaction began, the offset of record in Kafka ({@code kafkaOffset});
     * a lane's backward move to at least that offset is excused in one ownership (what was aborted runs again; that its
     * outputs commit once is {@link AdapterChecker}'s check).
     */
    ContainerChecker rewindsToKafka(java.util.function.IntToLongFunction kafkaOffset) {
        this.kafkaOffset = kafkaOffset;
        return this;
    }

    /**
     * Where an aborted transaction of {@code partition} goes back to at the lowest: Kafka's offset of record, or an
     * operator's reset made since Kafka's offset last moved (an adopted reset is where the next transaction begins: an
     * abort after it goes back to the reset point, below Kafka's offset when the reset went back; TRANSACTIONAL seed
     * 168: t-2 reset to 43 with Kafka at 46, 43..52 processed, an abort, 43 again).
     */
    private long transactionBase(int partition) {
        long kafka = kafkaOffset.applyAsLong(partition);
        long[] reset = resetSinceKafka.get(partition);
        return reset != null && reset[1] == kafka ? Math.min(kafka, reset[0]) : kafka;
    }

    /**
     * The transactional mode: {@code partition}'s last reset was taken up now. It is where an abort goes back to until
     * Kafka's offset next moves, also when Kafka's offset moved between the reset and its adoption: a commit prepared
     * before the reset commits in Kafka, then finds the reset in ZooKeeper and adopts it (TRANSACTIONAL_BATCH seed 40:
     * t-1 reset to 77 with Kafka at 103; the commit moves Kafka to 118 and adopts 77; 77..116 again, an abort, 77 again).
     */
    private void tookUp(int partition) {
        long[] reset = resetSinceKafka.get(partition);
        if (kafkaOffset != null && reset != null) {
            reset[1] = kafkaOffset.applyAsLong(partition);
        }
    }

    /** Whether the claim of {@code partition} whose fencing token is {@code token} still stands (its fence not moved). */
    private boolean standing(OptionalLong token, int partition) {
        return token.isEmpty()
                || zk.stat(io.groupkeeper.fixtures.ZkLayout.fence(
                                group, new io.groupkeeper.TopicPartition(topic, partition)))
                        .map(st -> st.mzxid() == token.getAsLong())
                        .orElse(true);
    }

    /**
     * Per partition (transactional mode): the last operator's reset {value, Kafka's offset when it was made or, once
     * taken up, then}.
     */
    private final Map<Integer, long[]> resetSinceKafka = new HashMap<>();

    /** Backward moves excused as the rewinds of aborted transactions (transactional mode). */
    long rewoundByAborts() {
        return rewoundByAborts;
    }

    long deadLettered() {
        return deadLettered;
    }

    /** The handover and node checks (the max span, the drains that ran out, what they judged). */
    HandoverChecker handovers() {
        return handovers;
    }

    private void violation(String what) {
        if (checker.violations().size() < 20) {
            checker.violations().add(what);
        }
        log.event("VIOLATION " + what);
    }

    // ------------------------------------------------------------------ the handler's calls

    /**
     * {@code member}'s handler starts the record at {@code offset} of {@code partition} with {@code key}, under the claim
     * whose fencing token the call carries ({@code token}).
     */
    void started(String member, int partition, String key, long offset, OptionalLong token) {
        if (kafkaOffset == null) {
            handovers.started(member, partition, offset, token);
        }
        if (ordering == Ordering.UNORDERED) {
            return;
        }
        String lane = ordering == Ordering.KEY ? String.valueOf(key) : "";
        String epoch = token.isPresent()
                ? String.valueOf(token.getAsLong())
                : "h" + epochs.getOrDefault(member + ":" + partition, 0);
        Lane l = lanes.computeIfAbsent(member + ":" + partition + ":" + lane, x -> new Lane());
        if (!l.epoch.equals(epoch)) { // a new ownership: its order judged afresh (what still runs is not forgotten)
            l.epoch = epoch;
            l.last = -1;
            // A reset of the partition made lately may be one the claim did not read yet: its first records come
            // from the offset before the reset, then it takes the reset up (CONCURRENT seed 58: t-0 claimed at 273,
            // reset to 251 as the worker's first record, 273, starts; then 251).
            Long resetAt = lastResetAt.get(partition);
            boolean lately = resetAt != null && now.getAsLong() - resetAt <= RESET_OVERLAP_MS;
            l.resetsUsed = resets.getOrDefault(partition, 0) - (lately ? 1 : 0);
        }
        String what =
                ordering == Ordering.KEY ? "key " + key + " of " + topic + "-" + partition : topic + "-" + partition;
        if (offset < l.last) {
            int resetsNow = resets.getOrDefault(partition, 0);
            if (kafkaOffset != null && (offset >= transactionBase(partition) || !standing(token, partition))) {
                // An aborted transaction's records again, from where it began (its calls ended); judged first, so that
                // it does not use up a reset not taken up yet. Under a claim that no longer stands (the fence moved:
                // a member that has not heard of its loss yet), from where its own transaction began: its producer is
                // fenced, no output of it commits (AdapterChecker's exactly once), and Kafka's offset of record is the
                // next owner's by then (TRANSACTIONAL seeds 279, 832, 1637, 1725, 1754 of 1..2000).
                rewoundByAborts++;
            } else if (resetsNow > l.resetsUsed) {
                // The operator's reset taken up: the lane starts again from its point, never below it (the lowest of
                // the resets it had not taken up yet).
                long point = resetValues.get(partition).subList(l.resetsUsed, resetsNow).stream()
                        .min(Long::compare)
                        .orElseThrow();
                if (offset < point) {
                    violation("order: " + member + " started " + what + " at " + offset + " after " + l.last
                            + ", below the point " + point + " of the operator's reset it took up");
                }
                l.resetsUsed = resetsNow;
                l.rewinds++;
                tookUp(partition);
            } else {
                violation("order: " + member + " started " + what + " at " + offset + " after " + l.last
                        + " in one ownership, with no operator's reset since");
            }
        }
        int made = resets.getOrDefault(partition, 0);
        Long resetAt = lastResetAt.get(partition);
        boolean resetLately = resetAt != null && now.getAsLong() - resetAt <= RESET_OVERLAP_MS;
        for (Map.Entry<Long, int[]> e : l.inFlight.entrySet()) {
            if (resetLately) {
                break; // what started before the owner took the reset up may still run
            }
            // An operator's reset since it started excuses the overlap: the owner let that progress go (also when it
            // starts again at or past the record still running: a reset to it, or forward over it; seed 10).
            if (e.getValue()[0] == l.rewinds && e.getValue()[1] == made) {
                violation("order: " + member + " started " + what + " at " + offset + " while " + e.getKey()
                        + " of the same " + (ordering == Ordering.KEY ? "key" : "partition") + " was in flight");
                break;
            }
        }
        l.last = offset;
        l.inFlight.put(offset, new int[] {l.rewinds, made});
    }

    /** The handler returned ({@code ok}) or threw, in a call carrying {@code token}. */
    void ended(String member, int partition, String key, long offset, boolean ok, OptionalLong token) {
        handovers.ended(member, partition, offset, ok, token);
        if (ordering != Ordering.UNORDERED) {
            String lane = ordering == Ordering.KEY ? String.valueOf(key) : "";
            Lane l = lanes.get(member + ":" + partition + ":" + lane);
            if (l != null) {
                l.inFlight.remove(offset);
            }
        }
        if (ok) {
            handled++;
            processed(partition, offset);
        }
    }

    /**
     * A record of a batch handled with the batch's first one ({@link #started} and {@link #ended} judge the batch's
     * call by its first record): handled too.
     */
    void handledWithBatch(int partition, long offset, OptionalLong token) {
        handovers.ended("", partition, offset, true, token);
        handled++;
        processed(partition, offset);
    }

    /** The record was published to the dead-letter topic (the container's listener heard it). */
    void deadLettered(String member, int partition, long offset) {
        handovers.deadLettered(member, partition, offset);
        deadLettered++;
        processed(partition, offset);
    }

    private void processed(int partition, long offset) {
        processed.computeIfAbsent(partition, p -> new BitSet()).set((int) offset);
        checker.processed(partition, offset);
    }

    /** {@code member} was assigned {@code partition}: a new ownership. */
    void assigned(String member, int partition) {
        epochs.merge(member + ":" + partition, 1, Integer::sum);
    }

    /** An operator set {@code partition}'s offset to {@code value}. */
    void reset(int partition, long value) {
        resets.merge(partition, 1, Integer::sum);
        resetValues.computeIfAbsent(partition, p -> new java.util.ArrayList<>()).add(value);
        if (kafkaOffset != null) {
            resetSinceKafka.put(partition, new long[] {value, kafkaOffset.applyAsLong(partition)});
        }
        lastResetAt.put(partition, now.getAsLong());
        BitSet p = processed.getOrDefault(partition, new BitSet());
        BitSet ex = excused.computeIfAbsent(partition, x -> new BitSet());
        for (int r = 0; r < value; r++) {
            if (!p.get(r)) {
                ex.set(r);
            }
        }
    }

    // ------------------------------------------------------------------ the offset nodes

    private void applied(long session, long zxid, List<ModelTransactions.Write> writes) {
        String prefix = io.groupkeeper.fixtures.ZkLayout.offsets(group) + "/" + topic + "/";
        if (session == OPERATOR) {
            for (ModelTransactions.Write w : writes) {
                if (w.path().startsWith(prefix)
                        && w.offset().isPresent()
                        && !w.corrupt()
                        && (w.kind() == ModelTransactions.Kind.SET || w.kind() == ModelTransactions.Kind.CREATE)) {
                    handovers.operatorWrote(partitionOf(w.path()), w.offset().getAsLong(), zxid);
                }
            }
            return;
        }
        // A release: the owner node deleted by its member's session (a session's end deletes it with session 0).
        String owners = io.groupkeeper.fixtures.ZkLayout.owners(group) + "/" + topic + "/";
        java.util.Set<Integer> released = new java.util.HashSet<>();
        for (ModelTransactions.Write w : writes) {
            if (w.kind() == ModelTransactions.Kind.DELETE && w.path().startsWith(owners)) {
                released.add(partitionOf(w.path()));
            }
        }
        for (ModelTransactions.Write w : writes) {
            if (!w.path().startsWith(prefix)
                    || w.offset().isEmpty()
                    || w.corrupt()
                    || w.kind() == ModelTransactions.Kind.CHECK
                    || w.kind() == ModelTransactions.Kind.DELETE) {
                continue;
            }
            int partition = partitionOf(w.path());
            NodeCodec.OffsetBody body;
            byte[] node;
            try {
                java.util.Optional<byte[]> data = zk.data(w.path());
                if (data.isEmpty()) {
                    continue;
                }
                node = data.get();
                body = NodeCodec.offset(w.path(), node);
            } catch (RuntimeException e) {
                continue; // gone again, or not readable: nothing claimed here
            }
            OptionalLong offset = body.offset();
            if (offset.isEmpty()) {
                continue;
            }
            OffsetProgress progress;
            try {
                progress = ProgressCodec.resume(offset.getAsLong(), body.done());
            } catch (RuntimeException e) {
                violation("progress: " + w.path() + " holds a done value that does not read: " + body.done());
                continue;
            }
            String who = w.committedBy().orElse("a member");
            BitSet p = processed.getOrDefault(partition, new BitSet());
            BitSet ex = excused.getOrDefault(partition, new BitSet());
            long low = progress.lowWater();
            int missing = -1;
            for (int r = 0; r < low; r++) {
                if (!p.get(r) && !ex.get(r)) {
                    missing = r;
                    break;
                }
            }
            if (missing >= 0) {
                violation("progress: " + who + " wrote " + topic + "-" + partition + "'s low-water mark " + low
                        + " but record " + missing + " was never handled or dead-lettered (transaction " + zxid + ")");
            }
            for (long d : progress.done()) {
                if (!p.get((int) d)) {
                    violation("progress: " + who + " wrote " + topic + "-" + partition + "'s done set "
                            + body.done().orElse("") + " but record " + d + " was never handled or dead-lettered "
                            + "(transaction " + zxid + ")");
                    break;
                }
            }
            handovers.written(
                    who,
                    partition,
                    progress,
                    body.done(),
                    node.length,
                    zxid,
                    released.contains(partition),
                    kafkaOffset == null); // (transactional: Kafka's offset is the one of record)
        }
    }

    private static int partitionOf(String path) {
        return Integer.parseInt(path.substring(path.lastIndexOf('/') + 1));
    }
}
