package io.groupkeeper.testkit.sim;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.kafka.sim.KafkaModel;
import io.groupkeeper.testkit.InMemoryZooKeeper;
import io.groupkeeper.testkit.ModelTransactions;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the users of the shipped adapter see, checked as a schedule runs ({@link AdapterSimulation}) and once it has
 * settled:
 * <ul>
 *   <li><b>at least once</b>: every input record is processed (its output committed, in the transactional mode),
 *   except those an operator's reset skipped (records below the reset point not processed by then);</li>
 *   <li><b>exactly once</b> (transactional mode): every input record's output is committed at most once in the
 *   {@code read_committed} view, once more for each operator reset that rewound over it: the records from the reset
 *   point up to the log end at the reset, and those past that log end that user code received after the reset and
 *   before the owner took it up (I4 gives the owner up to a commit interval to hear of a reset; what it processed
 *   meanwhile from the reset point on is processed again, by the operator's order);</li>
 *   <li><b>the offset of record never moves backwards</b> except by an operator: no member's write of an offset node
 *   in ZooKeeper is below the value it replaces, and no committed Kafka group offset is below the one before it unless
 *   an operator reset of the partition, to at most the new one, came before it (and was not
 *   taken up by an earlier backward move);</li>
 *   <li><b>a reset is taken up and never written over</b>: every record from the reset point up to the log end at the
 *   reset is processed again after it (its output committed after it);</li>
 *   <li><b>a graceful close replays nothing</b>: its final write (transactional: its final Kafka transaction), when it
 *   landed, holds the closer's last processed record + 1, and the heir starts there.</li>
 * </ul>
 */
final class AdapterChecker {

    private final InMemoryZooKeeper zk;
    private final String group;
    private final String topic;
    private final boolean transactional;
    private final SimLog log;
    private final List<String> violations = new ArrayList<>();
    /** The session of the operator's raw writes. */
    private static final long OPERATOR = 0;

    private final Map<Integer, Long> logEnd = new HashMap<>();
    /** Per input partition: the records processed (at least once) or whose output was committed (transactional). */
    private final Map<Integer, BitSet> done = new HashMap<>();
    /** Per input partition: the records an operator's reset skipped before they were done. */
    private final Map<Integer, BitSet> excused = new HashMap<>();
    /** Per input partition: the records a reset rewound over that are not done again since. */
    private final Map<Integer, BitSet> owed = new HashMap<>();
    /** Per input record ("p:offset"): outputs committed, and the resets that rewound over it. */
    private final Map<String, Integer> outputs = new HashMap<>();

    private final Map<String, Integer> rewinds = new HashMap<>();
    /** Per offset node path: the value it holds (as the applied transactions tell it). */
    private final Map<String, Long> zkOffsets = new HashMap<>();
    /** Per input partition: Kafka's committed group offset (as the model tells it). */
    private final Map<Integer, Long> kafkaOffsets = new HashMap<>();
    /**
     * Per input partition: the operator's resets not yet taken up by a backward move of Kafka's offset, in the order
     * they were made (commits prepared before the member heard of one may land first, at the old offsets, above the
     * reset point). Each excuses one backward move, to at least its value; a move takes up the earliest such reset and
     * voids the ones before it (an owner hears of resets in order: seed 1000160 of the transactional schedules, a
     * reset of t-0 to 181 then an edit to 77, Kafka 182 -> 181 -> 77).
     */
    private final Map<Integer, List<Long>> resetsSinceKafka = new HashMap<>();
    /**
     * Per input partition: the last operator reset ({value, log end then, its zxid}) that user code has not yet been
     * seen to take up (a record received at the reset point, coming back to it or as the first of an ownership claimed
     * after the reset).
     */
    private final Map<Integer, long[]> pendingReset = new HashMap<>();
    /** Per input partition: the records past the pending reset's log end received before it was taken up. */
    private final Map<Integer, BitSet> receivedPastPendingEnd = new HashMap<>();
    /** Per member and input partition ("m:p"): the offset of the last record its user code received. */
    private final Map<String, Long> lastReceived = new HashMap<>();

    private long resets;
    /** Per input partition: Kafka's log start (retention deleted the records before it). */
    private final Map<Integer, Long> logStart = new HashMap<>();

    private long retentions;
    /** Per member and input partition ("m:p"): the last record its user code received since it was last assigned it. */
    private final Map<String, Long> lastInOwnership = new HashMap<>();
    /** Per member and input partition ("m:p"): its user code's last act on the partition was an {@code abort}. */
    private final java.util.Set<String> abortedLast = new java.util.HashSet<>();
    /** Per member and input partition ("m:p"): the fencing token it was last assigned the partition under. */
    private final Map<String, java.util.OptionalLong> tokens = new HashMap<>();
    /** Per input partition: a graceful close's handover being judged ({@link #closing}). */
    private final Map<Integer, Handover> handovers = new HashMap<>();

    private long handoversJudged;
    /** Transactional: judged handovers whose final transaction the close committed ({@link Handover#committedInClose}). */
    private long finalTransactions;
    /** Graceful closes' handovers begun ({@link #closing}), judged or not. */
    private long handoversBegun;

    /** Which input record an output committed to Kafka is of ({@link #outputsOf}). */
    @FunctionalInterface
    interface OutputInput {
        /** The input record ("partition:offset") {@code key} and {@code value} sent to {@code out} are of; null: none. */
        String input(org.apache.kafka.common.TopicPartition out, Object key, Object value);
    }

    /** By default an output's key names its input (the adapter simulation's). */
    private OutputInput outputInput = (out, key, value) -> (String) key;

    /**
     * A graceful close's handover of one partition: the closer's last record processed + 1, what its session last
     * wrote to the offset node from the close on (null: no write landed), the members assigned the partition since
     * (other than the closer), the heir (the first of them to receive a record of it) and that record.
     */
    private static final class Handover {
        final String closer;
        final long session;
        /** The closer's last processed + 1: moves while a container's stop drains calls in flight ({@link #received}). */
        long next;

        Long finalWrite;
        /**
         * Transactional, unless the closer's last act on the partition was an {@code abort}: a commit during the close
         * is its final transaction only if it carries the output of the closer's last processed record; one that does
         * not is the commit of a claim made again after the transaction holding that output failed.
         */
        boolean needsLastOutput;
        /** Transactional: a commit during the close carried the output of the closer's last processed record. */
        boolean carriedLastOutput;
        /** Transactional: a commit during the close ({@link #closerCommitted}) gave {@link #finalWrite}. */
        boolean committedInClose;

        boolean closeDone;
        final java.util.Set<String> assignedSince = new java.util.HashSet<>();
        String heir;
        Long heirFirst;

        Handover(String closer, long session, long next) {
            this.closer = closer;
            this.session = session;
            this.next = next;
        }
    }

    AdapterChecker(InMemoryZooKeeper zk, String group, String topic, boolean transactional, SimLog log) {
        this.zk = zk;
        this.group = group;
        this.topic = topic;
        this.transactional = transactional;
        this.log = log;
        ModelTransactions.observe(zk, this::applied);
    }

    List<String> violations() {
        return violations;
    }

    /** How an output names its input record, when its key is not that name (the listener container's: bytes). */
    AdapterChecker outputsOf(OutputInput how) {
        this.outputInput = how;
        return this;
    }

    long resets() {
        return resets;
    }

    /** How many input records were processed (at least once) or had an output committed (transactional), in all. */
    long retentions() {
        return retentions;
    }

    long doneRecords() {
        return done.values().stream().mapToLong(BitSet::cardinality).sum();
    }

    /** How many graceful closes' handovers were judged (their final write landed and the heir received a record). */
    long handoversBegun() {
        return handoversBegun;
    }

    long finalTransactions() {
        return finalTransactions;
    }

    long handoversJudged() {
        return handoversJudged;
    }

    /** How many outputs were committed in all (transactional mode). */
    long outputs() {
        return outputs.values().stream().mapToLong(Integer::longValue).sum();
    }

    private void violation(String what) {
        if (violations.size() < 20) {
            violations.add(what);
        }
        log.event("VIOLATION " + what);
    }

    // ------------------------------------------------------------------ the world

    void produced(int partition, long end) {
        logEnd.put(partition, end);
    }

    long logEnd(int partition) {
        return logEnd.getOrDefault(partition, 0L);
    }

    /** User code processed input record {@code offset} of {@code partition} (at-least-once mode). */
    void processed(int partition, long offset) {
        if (!transactional) {
            done(partition, offset);
        }
    }

    private void done(int partition, long offset) {
        done.computeIfAbsent(partition, p -> new BitSet()).set((int) offset);
        BitSet o = owed.get(partition);
        if (o != null) {
            o.clear((int) offset);
        }
    }

    /**
     * User code of {@code member} received input record {@code offset} of {@code partition} from a poll. While an
     * operator's reset is not taken up, a record past the log end at the reset (and not below the reset point) is
     * rewound over by it too: the owner processes it before it hears of the reset, and again after.
     */
    void received(String member, int partition, long offset) {
        Long last = lastReceived.put(member + ":" + partition, offset);
        lastInOwnership.put(member + ":" + partition, offset);
        abortedLast.remove(member + ":" + partition);
        Handover h = handovers.get(partition);
        if (h != null && h.closer.equals(member) && !h.closeDone) {
            // A listener container's stop drains the handler calls in flight and what they fail into the dead-letter
            // topic: what they reach is handed over too (an adapter's close runs on its polling thread, which
            // processes nothing meanwhile).
            h.next = offset + 1;
            h.needsLastOutput = transactional;
            h.carriedLastOutput = false;
            if (!h.committedInClose) {
                h.finalWrite = null; // Kafka's offset where the close began is not where it hands over now
            }
        }
        if (h != null && h.heirFirst == null && h.assignedSince.contains(member)) {
            h.heir = member;
            h.heirFirst = offset;
            judge(partition, h);
        }
        long[] pending = pendingReset.get(partition);
        if (pending == null) {
            return;
        }
        // Back at the reset point: taken up. An ownership's first record there is the claim's start, a take-up only if
        // the claim came after the reset: one made before it may start at the same value (TRANSACTIONAL seed 1588: t-0
        // claimed at 0, reset to 0, 0..11 processed, the reset adopted, 0..11 again: 9..11, past the reset's log end,
        // are owed an allowance as records received before the take-up).
        if (offset == pending[0] && (last == null ? claimedSince(member, partition, pending[2]) : last >= offset)) {
            pendingReset.remove(partition);
            receivedPastPendingEnd.remove(partition);
            return;
        }
        if (offset >= Math.max(pending[0], pending[1])) {
            BitSet seen = receivedPastPendingEnd.computeIfAbsent(partition, p -> new BitSet());
            if (!seen.get((int) offset)) {
                seen.set((int) offset);
                rewinds.merge(partition + ":" + offset, 1, Integer::sum);
            }
        }
    }

    /** An operator reset {@code partition}'s offset to {@code value} (a raw write of its offset node). */
    void reset(int partition, long value) {
        resets++;
        long end = logEnd(partition);
        BitSet d = done.computeIfAbsent(partition, p -> new BitSet());
        BitSet ex = excused.computeIfAbsent(partition, p -> new BitSet());
        for (int r = 0; r < value; r++) {
            if (!d.get(r)) {
                ex.set(r); // skipped by the operator
            }
        }
        BitSet o = new BitSet();
        o.set((int) Math.min(value, end), (int) end);
        owed.put(partition, o); // an older reset's records below this one are excused, the rest owed again anyway
        for (long r = value; r < end; r++) {
            rewinds.merge(partition + ":" + r, 1, Integer::sum);
        }
        handovers.remove(partition); // the operator moved the offset: the heir starts where the reset says
        // the owner takes up the last one it hears of (at the log start, when retention deleted the reset point)
        pendingReset.put(partition, new long[] {value, end, zk.lastZxid()});
        receivedPastPendingEnd.remove(partition);
        gone(partition, logStart.getOrDefault(partition, 0L));
        // Below Kafka's offset, or not: a transaction prepared before the owner heard of the reset may commit past the
        // reset point after it (seed 7, transactional: a reset of t-0 to 185 with Kafka's offset at most that; the
        // open transaction commits 218, then the owner takes the reset up and commits 185).
        resetsSinceKafka.computeIfAbsent(partition, p -> new ArrayList<>()).add(value);
        log.event("operator resets " + topic + "-" + partition + " to " + value + " (log end " + end + ")");
    }

    /**
     * Kafka's retention deleted the records of {@code partition} before {@code start}: those not done are excused (no
     * member can process them any more), as are those a reset rewound over; an owner whose position is below the start
     * is moved there by the out-of-range policy ({@code EARLIEST}), so a reset not taken up yet whose point was deleted
     * is taken up at the start.
     */
    void retained(int partition, long start) {
        retentions++;
        logStart.merge(partition, start, Math::max);
        gone(partition, start);
    }

    /** The records of {@code partition} before {@code start} are deleted: what they owed is excused. */
    private void gone(int partition, long start) {
        BitSet d = done.computeIfAbsent(partition, p -> new BitSet());
        BitSet ex = excused.computeIfAbsent(partition, p -> new BitSet());
        for (int r = 0; r < start; r++) {
            if (!d.get(r)) {
                ex.set(r);
            }
        }
        BitSet o = owed.get(partition);
        if (o != null) {
            o.clear(0, (int) start);
        }
        long[] pending = pendingReset.get(partition);
        if (pending != null && pending[0] < start) {
            pending[0] = start;
        }
    }

    /**
     * Whether {@code offset}, above {@code from}, is where a member moved from {@code from} may stand: every record
     * between was deleted by retention (the out-of-range policy moved it to the log start).
     */
    private boolean pastDeleted(int partition, long from, long offset) {
        return offset > from && offset <= logStart.getOrDefault(partition, 0L);
    }

    // ------------------------------------------------------------------ graceful closes

    /**
     * {@code member}'s user code was assigned {@code partition} (its rebalance listener, on its polling thread), under
     * the fencing token {@code token} its member holds for it then.
     *
     * <p>A member serving an assignment whose claim no longer stands in ZooKeeper (the partition's fence node moved
     * past the token: another owner claimed it since) is no heir of a graceful close. That is a paused process whose
     * session ended: its claim was announced before the pause, before the closer's close, and its polling thread
     * serves it as the process resumes, before its member hears of the loss. What it receives is a lost claim's
     * records again, which at least once allows (it can commit none of them: the commit fence moved), and no check in
     * the process closes that window, as a pause may fall between any check and the delivery. The heir is the first
     * member assigned the partition under its standing claim to receive a record of it (seed 1003121: m1, paused with
     * its claim of t-0 at 142 queued, serves it after m3 handed t-0 over at 214, then claims t-0 anew from 214).
     */
    void assigned(String member, java.util.OptionalLong token, int partition) {
        lastInOwnership.remove(member + ":" + partition);
        tokens.put(member + ":" + partition, token);
        Handover h = handovers.get(partition);
        // Not the first member assigned it, but the first of them to receive a record is the heir: one assigned it may
        // lose it before it receives any (seed 1000647: a stalled member's queued assignment is served and revoked in
        // one turn; the next owner starts where the closer handed over).
        if (h != null && !h.closer.equals(member) && standing(token, partition)) {
            h.assignedSince.add(member);
        }
    }

    /** Whether a claim of {@code partition} under {@code token} still stands: its fence node was not moved since. */
    /**
     * Whether {@code member}'s claim of {@code partition} came after the transaction {@code zxid} (its fencing token,
     * the fence node's write, is later); true when the claim's token is unknown.
     */
    private boolean claimedSince(String member, int partition, long zxid) {
        java.util.OptionalLong token = tokens.getOrDefault(member + ":" + partition, java.util.OptionalLong.empty());
        return token.isEmpty() || token.getAsLong() > zxid;
    }

    private boolean standing(java.util.OptionalLong token, int partition) {
        if (token.isEmpty()) {
            return false;
        }
        return zk.stat(ZkLayout.fence(group, new TopicPartition(topic, partition)))
                .map(s -> s.mzxid() == token.getAsLong())
                .orElse(false);
    }

    /**
     * {@code member} (store session {@code session}) starts a graceful close owning {@code partitions}: each one whose
     * records it processed in this ownership, with no operator's reset pending, is handed over at its last processed
     * + 1 (transactional: the last record whose output it sent, or where its last {@code abort} went back to). In the
     * transactional mode a partition whose Kafka offset is that already has nothing left to commit: its handover is
     * judged as if its final transaction had committed it.
     */
    void closing(String member, long session, java.util.Collection<Integer> partitions) {
        for (int p : partitions) {
            Long last = lastInOwnership.get(member + ":" + p);
            // An operator's reset not taken up yet is what the final write stores (seed 28: a typo's repair to 152
            // lands as the stalled closer resumes; it processed up to 226).
            // Transactional: not a claim that no longer stands (a paused member whose session ended, closing as it
            // resumes: the partition moved on before the close; its heir was assigned before it, and the closer's
            // Kafka offset, already its position, is not a final transaction of an ownership; seed 1000767).
            if (transactional && !standing(tokens.getOrDefault(member + ":" + p, java.util.OptionalLong.empty()), p)) {
                continue;
            }
            if (last != null && !pendingReset.containsKey(p)) {
                Handover h = new Handover(member, session, last + 1);
                if (transactional && kafkaOffsets.getOrDefault(p, -1L) == last + 1) {
                    h.finalWrite = last + 1;
                }
                // (also when Kafka's offset is there already: records processed again after a reset below it, seed
                // 3001768: Kafka 169, a reset to 168, 168 processed again)
                h.needsLastOutput = transactional && !abortedLast.contains(member + ":" + p);
                handovers.put(p, h);
                handoversBegun++;
            }
        }
    }

    /**
     * {@code member}'s user code aborted {@code partition}'s transaction (an output was rejected) and the consumer
     * went back to {@code at} (-1: not owned): what it processed ends before {@code at}.
     */
    void aborted(String member, int partition, long at) {
        if (at >= 0 && lastInOwnership.containsKey(member + ":" + partition)) {
            lastInOwnership.put(member + ":" + partition, at - 1);
            abortedLast.add(member + ":" + partition);
        }
    }

    /**
     * Transactional: a Kafka transaction of {@code member}'s, committed on its polling thread during its
     * {@code close()}, committed {@code partition}'s group offset {@code offset}: the close's final transaction.
     */
    void closerCommitted(String member, int partition, long offset) {
        Handover h = handovers.get(partition);
        if (transactional && h != null && h.closer.equals(member) && !h.closeDone) {
            h.finalWrite = offset;
            h.committedInClose = true;
        }
    }

    /**
     * Transactional: a Kafka transaction of {@code member}'s, committed on its polling thread during its
     * {@code close()}, committed the output of input record {@code offset} of {@code partition}.
     */
    void closerOutput(String member, int partition, long offset) {
        Handover h = handovers.get(partition);
        if (h != null && h.closer.equals(member) && !h.closeDone && offset == h.next - 1) {
            h.carriedLastOutput = true;
        }
    }

    /** {@code member}'s {@code close()} returned. */
    void closed(String member) {
        for (Map.Entry<Integer, Handover> e : List.copyOf(handovers.entrySet())) {
            if (e.getValue().closer.equals(member)) {
                e.getValue().closeDone = true;
                judge(e.getKey(), e.getValue());
            }
        }
    }

    /**
     * A graceful close replays nothing: when the closer's final write landed (its session wrote the offset node from
     * the close on), it wrote the closer's last processed + 1, and the heir's first record is that one. Transactional:
     * when the close's final transaction committed (or Kafka's offset was that already), it committed the closer's
     * last processed + 1, and the heir's first record is that one: no output committed is processed again, nothing
     * processed whose output was not committed is skipped (a final transaction that did not commit, refused or
     * failed, leaves the heir to start at Kafka's offset before it: those outputs were aborted).
     */
    private void judge(int partition, Handover h) {
        if (!h.closeDone || h.heirFirst == null) {
            return;
        }
        handovers.remove(partition);
        if (h.finalWrite == null) {
            return; // the final write did not land: the heir repeats from the last commit, as at least once allows
        }
        if (h.committedInClose && h.needsLastOutput && !h.carriedLastOutput) {
            // Transactional: the transaction holding the closer's last outputs did not commit (it failed during the
            // close or before it, aborted); what the close committed is a claim's made again after it: ZooKeeper's
            // offset, an operator's reset the closer had taken up (seed 3001768: t-0 reset to 168; m1 outputs 168
            // again, the close's transaction fails, the claim commits 168 to Kafka). The heir starts there.
            return;
        }
        handoversJudged++;
        if (h.committedInClose) {
            finalTransactions++;
        }
        String stored = transactional ? "its final transaction committed" : "its final write stored";
        if (h.finalWrite != h.next && !pastDeleted(partition, h.next, h.finalWrite)) {
            violation("graceful close: " + h.closer + " processed " + topic + "-" + partition + " up to " + (h.next - 1)
                    + " but " + stored + " " + h.finalWrite);
        } else if (h.heirFirst != h.next && !pastDeleted(partition, h.next, h.heirFirst)) {
            violation("graceful close replayed: " + h.closer + " handed " + topic + "-" + partition + " over at "
                    + h.next + " (" + (transactional ? "its final transaction committed" : "its final write landed")
                    + ") but the heir " + h.heir + " started at " + h.heirFirst);
        }
    }

    // ------------------------------------------------------------------ Kafka's side

    KafkaModel.Observer kafkaObserver() {
        return new KafkaModel.Observer() {
            @Override
            public void groupOffsetCommitted(
                    String g, org.apache.kafka.common.TopicPartition tp, long offset, Long before, String by) {
                if (!g.equals(group) || !tp.topic().equals(topic)) {
                    return;
                }
                kafkaOffsets.put(tp.partition(), offset);
                if (before != null && offset < before) {
                    List<Long> resets = resetsSinceKafka.getOrDefault(tp.partition(), new ArrayList<>());
                    int taken = 0;
                    while (taken < resets.size() && resets.get(taken) > offset) {
                        taken++;
                    }
                    if (taken == resets.size()) {
                        violation("Kafka's offset of record of " + tp + " moved backwards from " + before + " to "
                                + offset + " (by " + by + ")"
                                + (resets.isEmpty()
                                        ? " with no operator reset since"
                                        : ", below the operator's resets since to " + resets));
                        resets.clear();
                    } else {
                        resets.subList(0, taken + 1).clear();
                    }
                }
                detail("kafka offset " + tp + " " + before + " -> " + offset + " by " + by);
            }

            @Override
            public void outputCommitted(org.apache.kafka.common.TopicPartition out, Object key, Object value) {
                String input = outputInput.input(out, key, value);
                if (input == null) {
                    return;
                }
                int n = outputs.merge(input, 1, Integer::sum);
                int colon = input.indexOf(':');
                int partition = Integer.parseInt(input.substring(0, colon));
                long offset = Long.parseLong(input.substring(colon + 1));
                int allowed = 1 + rewinds.getOrDefault(input, 0);
                if (n > allowed) {
                    violation("exactly once: the output of input " + topic + "-" + partition + "@" + offset
                            + " committed " + n + " times (" + (allowed - 1) + " operator rewinds over it)");
                }
                done(partition, offset);
            }
        };
    }

    // ------------------------------------------------------------------ ZooKeeper's side

    void applied(long session, long zxid, List<ModelTransactions.Write> writes) { // (ContainerChecker's too)
        for (ModelTransactions.Write w : writes) {
            if (!w.path().startsWith(ZkLayout.offsets(group) + "/")) {
                continue;
            }
            if (w.kind() == ModelTransactions.Kind.DELETE) {
                zkOffsets.remove(w.path());
                continue;
            }
            if (w.offset().isEmpty() || w.kind() == ModelTransactions.Kind.CHECK) {
                continue;
            }
            long now = w.offset().getAsLong();
            Long was = zkOffsets.put(w.path(), now);
            detail("zk " + w.path().substring(w.path().indexOf("/offsets/") + 9) + " " + was + " -> " + now + " by "
                    + w.committedBy().orElse("-") + " (" + w.kind() + " at version " + w.version() + ", transaction "
                    + zxid + " of session 0x" + Long.toHexString(session) + fences(writes) + ")");
            if (!transactional && !handovers.isEmpty()) { // (transactional: the final Kafka commit, closerCommitted)
                handovers.forEach((p, h) -> {
                    if (h.session == session && w.path().equals(ZkLayout.offset(group, new TopicPartition(topic, p)))) {
                        h.finalWrite = now;
                    }
                });
            }
            if (session != OPERATOR && was != null && now < was) {
                violation("ZooKeeper's offset of record " + w.path() + " moved backwards from " + was + " to " + now
                        + " (transaction " + zxid + " of session 0x" + Long.toHexString(session) + ")");
            }
        }
    }

    /** The fence versions a transaction checks ("fence t/4 at 3"), for the detailed trace. */
    private static String fences(List<ModelTransactions.Write> writes) {
        StringBuilder out = new StringBuilder();
        for (ModelTransactions.Write w : writes) {
            if (w.kind() == ModelTransactions.Kind.CHECK && w.path().contains("/fences/")) {
                out.append(", fence ")
                        .append(w.path().substring(w.path().indexOf("/fences/") + 8))
                        .append(" at ")
                        .append(w.version());
            }
        }
        return out.toString();
    }

    /**
     * A line of detail (each offset write, each assignment and revocation): in the report with
     * {@code -Dgroupkeeper.adapterSimulation.detail=true}, otherwise only in the run's hash.
     */
    void detail(String what) {
        if (DETAIL) {
            log.event(what);
        } else {
            log.routine(what);
        }
    }

    private static final boolean DETAIL = Boolean.getBoolean("groupkeeper.adapterSimulation.detail");

    // ------------------------------------------------------------------ once settled

    /** Whether everything owed is done (the run may end). */
    boolean caughtUp(int partitions) {
        return missing(partitions).isEmpty();
    }

    private List<String> missing(int partitions) {
        List<String> out = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            BitSet d = done.getOrDefault(p, new BitSet());
            BitSet ex = excused.getOrDefault(p, new BitSet());
            long end = logEnd(p);
            int lost = 0;
            long first = -1;
            for (int r = 0; r < end; r++) {
                if (!d.get(r) && !ex.get(r)) {
                    lost++;
                    if (first < 0) {
                        first = r;
                    }
                }
            }
            if (lost > 0) {
                out.add("at least once: " + lost + " records of " + topic + "-" + p + " never "
                        + (transactional ? "had an output committed" : "processed") + ", the first " + first
                        + " (log end " + end + ")");
            }
            BitSet o = owed.getOrDefault(p, new BitSet());
            if (!o.isEmpty()) {
                out.add("reset not taken up: " + o.cardinality() + " records of " + topic + "-" + p + " from "
                        + o.nextSetBit(0) + " not " + (transactional ? "output" : "processed") + " again after the "
                        + "operator's last reset");
            }
        }
        return out;
    }

    void settled(int partitions) {
        missing(partitions).forEach(this::violation);
    }
}
