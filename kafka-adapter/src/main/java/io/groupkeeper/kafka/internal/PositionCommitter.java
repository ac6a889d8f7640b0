package io.groupkeeper.kafka.internal;

import io.groupkeeper.CommitResult;
import io.groupkeeper.GroupMember;
import io.groupkeeper.SeenOffset;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.kafka.OutOfRangePolicy;
import io.groupkeeper.metrics.GroupMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What of the {@link Positions} is committed to the group's store, and when: changed positions every commit interval
 * (and, every tenth, unchanged ones of lagging partitions), resolved start positions at once, everything on
 * {@code commitSync()} and {@code close()},
 * the final positions of revoked partitions (handed to the member to write with their release), and the corrections
 * of the out-of-range policy. Applies what the store answers: committed, adopted (an external edit wins: the poll loop
 * seeks there), or not owned (dropped at once). Copies what the store committed to the
 * {@link OffsetMirror}, if there is one. Polling thread only.
 */
final class PositionCommitter {

    /** How long a final commit waits for the mirror producers of partitions gained a moment before. */
    private static final Duration MIRROR_READY_WAIT = Duration.ofSeconds(10);

    // The adapter's one logger: users' logging configurations and the tests name it.
    private static final Logger LOG = LoggerFactory.getLogger(DefaultCoordinatedConsumer.class);
    /** Re-commit unchanged lagging positions every this many commit intervals (lag status: STALL vs STOP). */
    static final int STATUS_HEARTBEAT_INTERVALS = 10;

    /** What the poll loop does with the store's answers. */
    interface Effects {
        /** Someone else changed the stored offset: continue from {@code stored} (empty: start policy again). */
        void adopt(OwnedPartition p, OptionalLong stored);

        /** The member does not own these any more; they are dropped from the positions already (no commit). */
        void dropped(SortedSet<TopicPartition> partitions);
    }

    private final String group;
    private final GroupMember member;
    private final Positions positions;
    /** Null when offsets are not mirrored to Kafka. */
    private final OffsetMirror mirror;

    private final GroupMetrics metrics;
    private final Duration interval;
    private final OutOfRangePolicy outOfRange;
    private final LongSupplier nanoTime;
    private final Effects effects;
    /** The transactional mode's producers; null when off. */
    private final KafkaTransactions txns;

    private long lastPeriodicNanos;
    private long periodicCommits;
    private boolean failing;

    /** {@code since}: when the commit interval starts to count (the consumer's creation). */
    PositionCommitter(
            String group,
            GroupMember member,
            Positions positions,
            OffsetMirror mirror,
            GroupMetrics metrics,
            Duration interval,
            OutOfRangePolicy outOfRange,
            LongSupplier nanoTime,
            long since,
            Effects effects) {
        this(group, member, positions, mirror, metrics, interval, outOfRange, nanoTime, since, effects, null);
    }

    /** As above, in the transactional mode when {@code txns} is not null (Kafka commits before each store write). */
    PositionCommitter(
            String group,
            GroupMember member,
            Positions positions,
            OffsetMirror mirror,
            GroupMetrics metrics,
            Duration interval,
            OutOfRangePolicy outOfRange,
            LongSupplier nanoTime,
            long since,
            Effects effects,
            KafkaTransactions txns) {
        this.txns = txns;
        this.group = group;
        this.member = member;
        this.positions = positions;
        this.mirror = mirror;
        this.metrics = metrics;
        this.interval = interval;
        this.outOfRange = outOfRange;
        this.nanoTime = nanoTime;
        this.effects = effects;
        this.lastPeriodicNanos = since;
    }

    /**
     * The periodic commit, if one is due. Skipped while the store's connection is down (the member refuses commits
     * then anyway; don't wait on it). A failure is logged once until commits work again.
     */
    void maybeCommitPeriodically(boolean connectionDown) {
        long now = nanoTime.getAsLong();
        if (now - lastPeriodicNanos < interval.toNanos() || connectionDown) {
            return;
        }
        lastPeriodicNanos = now;
        try {
            // Every tenth interval also re-commit lagging partitions whose position did not move: a consumer that is
            // alive but stuck then shows as STALL rather than STOP (docs/metrics.md).
            commit(positions.all(), ++periodicCommits % STATUS_HEARTBEAT_INTERVALS == 0);
            if (failing) {
                failing = false;
                LOG.info("commits work again");
            }
        } catch (RuntimeException e) {
            if (!failing) {
                failing = true;
                LOG.warn("periodic commit failed, will retry: {}", e.toString());
            }
        }
    }

    /** Commits every changed position and applies the result; store failures propagate. */
    void commitAll() {
        commit(positions.all(), false);
    }

    /** {@link #commitAll} on close: first lets the mirror producers of partitions gained a moment ago get ready. */
    void commitFinalOnClose() {
        if (mirror != null) {
            mirror.awaitReady(positions.owned(), MIRROR_READY_WAIT);
        }
        commitAll();
    }

    /**
     * The final positions of partitions being revoked: handed to the member, which writes them in the same atomic
     * write that releases the partitions (one round trip fewer before the next owner starts). Any it refuses (not
     * being revoked by the member right now) are committed at once. Those the member claimed again since are
     * neither ({@link #claimedAgain}: a revocation served late would hand them to the release of the newer claim).
     */
    void commitFinal(Collection<OwnedPartition> revoked) {
        try {
            if (txns != null) {
                txns.commit(revoked); // (a fenced one's store write is refused as well: another member owns it)
            }
            Map<TopicPartition, Long> offsets = new TreeMap<>();
            Map<TopicPartition, Long> logEnds = new TreeMap<>();
            collect(revoked, false, offsets, logEnds);
            heldBack(offsets, logEnds);
            claimedAgain(offsets, logEnds); // a revocation served late: the member may be releasing a newer claim
            if (offsets.isEmpty()) {
                return;
            }
            Map<TopicPartition, String> done = doneOf(offsets.keySet());
            if (mirror != null) { // a partition gained a moment ago: let its mirror producer get ready first
                mirror.awaitReady(offsets.keySet(), MIRROR_READY_WAIT);
            }
            long mark = mark();
            zkWriting(offsets);
            SortedSet<TopicPartition> taken = done.isEmpty()
                    ? member.commitOnRelease(offsets, logEnds)
                    : member.commitOnRelease(offsets, logEnds, done);
            if (mirror != null) { // (no allocation on the revocation path when the mirror is off)
                mirror(
                        offsets.entrySet().stream()
                                .filter(e -> taken.contains(e.getKey()))
                                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)),
                        mark);
            }
            commit(revoked.stream().filter(p -> !taken.contains(p.tp)).toList(), false);
        } finally {
            if (mirror != null) {
                mirror.released(revoked.stream().map(p -> p.tp).toList());
            }
            if (txns != null) {
                txns.release(revoked.stream().map(p -> p.tp).toList());
            }
        }
    }

    /**
     * Re-reads the stored offsets of {@code changed} (an external edit was announced) and applies them; false if the
     * store could not be read (the next commit of these partitions is refused and reported as adopted, so the edit is
     * not lost).
     */
    boolean refresh(SortedSet<TopicPartition> changed) {
        CommitResult result;
        try {
            result = member.refresh(changed);
        } catch (RuntimeException e) {
            LOG.warn("could not re-read the changed offsets of {}: {}", changed, e.toString());
            return false;
        }
        if (txns != null) { // a read answered after every earlier write: what the nodes hold is known
            txns.zkSettled(changed);
        }
        apply(result, Map.of(), 0);
        return true;
    }

    /**
     * Stores the out-of-range policy's corrections at once, logging each one (or that it is stored later), through the
     * normal, fenced commit as {@link #storeStarts} does: in the transactional mode a Kafka transaction first, so the
     * correction gets the guards every store write has (nothing written while a fresh start is not in Kafka, Kafka's
     * offset while its commit is held back, the value named as unconfirmed until the write returns). In that mode a
     * later abort or failed transaction goes back to the correction, not below the log start.
     */
    void storeCorrections(PositionResolver.Corrections c) {
        List<OwnedPartition> moved = new ArrayList<>();
        Map<TopicPartition, OptionalLong> storedBefore = new HashMap<>();
        for (Map.Entry<TopicPartition, Long> e : c.corrected().entrySet()) {
            OwnedPartition p = positions.get(e.getKey());
            if (p == null) {
                continue;
            }
            p.forgetProgress(); // the position moved under the container's progress: commits write it now
            if (txns != null) {
                txns.corrected(e.getKey(), e.getValue());
            }
            storedBefore.put(p.tp, p.committed);
            moved.add(p);
        }
        try {
            commit(moved, false);
        } catch (RuntimeException ce) {
            LOG.warn(
                    "could not store the corrected offsets {} yet (retrying with the next commit): {}",
                    c.corrected(),
                    ce.toString());
        }
        for (OwnedPartition p : moved) {
            if (positions.get(p.tp) != p) {
                continue; // (fenced or dropped by the commit: its log says why)
            }
            long to = c.corrected().get(p.tp);
            OptionalLong stored = storedBefore.get(p.tp);
            if (p.committed.isPresent() && p.committed.getAsLong() == to) {
                LOG.warn(
                        "partition {}: offset {} is {}; outOfRange={}: corrected to {} and stored it "
                                + "(stored offset was {})",
                        p.tp,
                        c.bad().get(p.tp),
                        c.why().get(p.tp),
                        outOfRange,
                        to,
                        stored.isPresent() ? stored.getAsLong() : "none");
                metrics.offsetCorrected(group, p.tp, outOfRange.name().toLowerCase());
            } else if (p.committed.equals(stored)) {
                LOG.warn(
                        "partition {}: offset {} is {}; outOfRange={}: continuing from {} (to be stored "
                                + "with the next commit)",
                        p.tp,
                        c.bad().get(p.tp),
                        c.why().get(p.tp),
                        outOfRange,
                        to);
            }
        }
    }

    /**
     * Stores at once the start positions just resolved for partitions without a stored offset (through the normal,
     * fenced commit: in the transactional mode a Kafka transaction first), so the group's start position is durable:
     * "latest" is the log end when the group first took the partition, not whenever an owner starts without a commit.
     * Only those still never committed are written; a position the user's listener sought meanwhile (a JDBC sink's
     * offset of record) is stored as it is, never replaced. A failure is logged: the next commit stores it.
     */
    void storeStarts(Collection<OwnedPartition> started) {
        List<OwnedPartition> owed = started.stream()
                .filter(p -> p.committed.isEmpty() && positions.get(p.tp) == p)
                .toList();
        if (owed.isEmpty()) {
            return;
        }
        try {
            commit(owed, false);
        } catch (RuntimeException e) {
            LOG.warn(
                    "could not store the start positions of {} yet (retrying with the next commit): {}",
                    owed.stream().map(p -> p.tp).toList(),
                    e.toString());
        }
    }

    /** Commits the changed positions among {@code which} (with {@code lagging}, also unchanged lagging ones). */
    private void commit(Collection<OwnedPartition> which, boolean lagging) {
        Map<TopicPartition, Long> offsets = new TreeMap<>();
        Map<TopicPartition, Long> logEnds = new TreeMap<>();
        if (txns != null) {
            txns.retryClaims();
            SortedSet<TopicPartition> fenced = txns.commit(which);
            if (!fenced.isEmpty()) {
                which = which.stream().filter(p -> !fenced.contains(p.tp)).toList();
                fenced.forEach(positions::remove);
                effects.dropped(fenced);
            }
        }
        collect(which, lagging, offsets, logEnds);
        heldBack(offsets, logEnds);
        if (mirror != null) { // committed while their mirror producer was not ready: once more, now that it is
            for (TopicPartition tp : mirror.owed()) {
                OwnedPartition p = positions.get(tp);
                if (p != null && p.active() && !offsets.containsKey(tp)) {
                    offsets.put(tp, p.commitOffset());
                    if (p.logEnd >= 0) {
                        logEnds.put(tp, p.logEnd);
                    }
                }
            }
        }
        claimedAgain(offsets, logEnds);
        if (!offsets.isEmpty()) {
            long mark = mark();
            zkWriting(offsets);
            Map<TopicPartition, String> metadata = new TreeMap<>();
            for (TopicPartition tp : offsets.keySet()) {
                OwnedPartition p = positions.get(tp);
                if (p != null && !p.metadata.isEmpty()) {
                    metadata.put(tp, p.metadata);
                }
            }
            Map<TopicPartition, String> done = doneOf(offsets.keySet());
            CommitResult result = !done.isEmpty()
                    ? member.commit(offsets, logEnds, metadata, done)
                    : metadata.isEmpty() ? member.commit(offsets, logEnds) : member.commit(offsets, logEnds, metadata);
            if (txns != null) {
                txns.zkSettled(offsets.keySet());
            }
            apply(result, offsets, mark, metadata, done);
        }
    }

    /**
     * Leaves out the partitions the member claimed again since this thread was assigned them (their fencing token
     * moved: a reconnection, a repaired node). The member accepts commits for the new claim as soon as its lane has
     * queued the assignment, so a position of the earlier claim would be written under the new claim's version, over
     * what that claim read (an operator's edit among them). The queued assignment serves the new claim.
     */
    private void claimedAgain(Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> logEnds) {
        offsets.keySet().removeIf(tp -> {
            OwnedPartition p = positions.get(tp);
            OptionalLong now = p == null || p.token < 0 ? OptionalLong.empty() : member.fencingToken(tp);
            if (now.isEmpty() || now.getAsLong() == p.token) {
                return false; // (not owned, or claimed again unannounced: the member refuses it, NOT_OWNED)
            }
            LOG.debug(
                    "{} was claimed again since it was assigned (token {} -> {}); its position {} is not committed",
                    tp,
                    p.token,
                    now.getAsLong(),
                    offsets.get(tp));
            logEnds.remove(tp);
            return true;
        });
    }

    /** The done values ({@link ProgressCommits#progress}) of those of {@code partitions} that have one. */
    private Map<TopicPartition, String> doneOf(Set<TopicPartition> partitions) {
        Map<TopicPartition, String> done = new TreeMap<>();
        for (TopicPartition tp : partitions) {
            OwnedPartition p = positions.get(tp);
            if (p != null && p.done.isPresent()) {
                done.put(tp, p.done.get());
            }
        }
        return done;
    }

    /**
     * The stored offset of an owned partition as the member last saw it (claimed, adopted or committed): empty when
     * nothing was seen (not owned), an empty offset when the node has none (never stored, or deleted).
     */
    SeenOffset seenOffset(TopicPartition tp) {
        return member.seenOffset(tp);
    }

    /** The done value stored beside the offset of an owned partition, as the member last saw it. */
    Optional<String> storedDone(TopicPartition tp) {
        return member.done(tp);
    }

    /**
     * The transactional mode: partitions whose Kafka commit was held back (too many ZooKeeper writes of unknown
     * outcome) write Kafka's offset to ZooKeeper instead of the position, or nothing if Kafka has none.
     */
    private void heldBack(Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> logEnds) {
        if (txns == null) {
            return;
        }
        for (TopicPartition tp : new ArrayList<>(offsets.keySet())) {
            long o = txns.zkOffset(tp, offsets.get(tp));
            if (o < 0) {
                offsets.remove(tp);
                logEnds.remove(tp);
            } else {
                offsets.put(tp, o);
            }
        }
    }

    /** The transactional mode: ZooKeeper may hold these from now on, until the write returns. */
    private void zkWriting(Map<TopicPartition, Long> offsets) {
        if (txns != null) {
            txns.zkWriting(offsets);
        }
    }

    /** The transactional mode: claims newly assigned partitions (fencing their former owners' producers). */
    void claimed(Collection<OwnedPartition> assigned) {
        if (txns != null) {
            txns.claim(assigned);
        }
    }

    /**
     * What a commit of {@code which} writes: the positions of dirty partitions (with {@code lagging}, also of lagging
     * ones whose position did not move) into {@code offsets}, and their log ends, where known, into {@code logEnds}.
     */
    static void collect(
            Collection<OwnedPartition> which,
            boolean lagging,
            Map<TopicPartition, Long> offsets,
            Map<TopicPartition, Long> logEnds) {
        for (OwnedPartition p : which) {
            if (p.dirty() || (lagging && p.lagging())) {
                offsets.put(p.tp, p.commitOffset());
                if (p.logEnd >= 0) {
                    logEnds.put(p.tp, p.logEnd);
                }
            }
        }
    }

    /** Applies a commit or refresh result: committed, adopted (seek there), or not owned (drop now). */
    private void apply(CommitResult result, Map<TopicPartition, Long> attempted, long mark) {
        apply(result, attempted, mark, Map.of(), Map.of());
    }

    /**
     * As above; {@code metadata} and {@code done}: what the commit wrote as each partition's offset metadata (absent:
     * "") and done value (absent: none).
     */
    private void apply(
            CommitResult result,
            Map<TopicPartition, Long> attempted,
            long mark,
            Map<TopicPartition, String> metadata,
            Map<TopicPartition, String> done) {
        SortedSet<TopicPartition> notOwned = new TreeSet<>();
        Map<TopicPartition, Long> committed = mirror == null ? Map.of() : new TreeMap<>();
        result.statuses().forEach((tp, status) -> {
            if (mirror != null && status == CommitResult.Status.COMMITTED && attempted.containsKey(tp)) {
                committed.put(tp, attempted.get(tp));
            }
            OwnedPartition p = positions.get(tp);
            if (p == null) {
                return;
            }
            switch (status) {
                case COMMITTED -> {
                    p.committed = OptionalLong.of(attempted.get(tp));
                    p.committedMetadata = metadata.getOrDefault(tp, "");
                    p.committedDone = Optional.ofNullable(done.get(tp));
                }
                case ADOPTED -> {
                    OptionalLong stored = result.adoptedOffsets().getOrDefault(tp, OptionalLong.empty());
                    if (txns != null) { // before the seek: a later abort goes back to the reset, not before it
                        txns.adopted(tp, stored);
                    }
                    effects.adopt(p, stored);
                }
                case NOT_OWNED -> notOwned.add(tp);
                case UNCHANGED -> {}
            }
        });
        mirror(committed, mark);
        if (!notOwned.isEmpty()) {
            if (txns != null) { // their producers, at the newest epoch, would otherwise live on until close
                txns.lost(notOwned);
            }
            notOwned.forEach(positions::remove); // (with their lag gauges)
            effects.dropped(notOwned);
        }
    }

    /** These partitions were lost (no final commit): the mirror drops what it still holds for them. */
    void lost(Collection<TopicPartition> partitions) {
        if (txns != null) {
            txns.lost(partitions);
        }
        if (mirror != null) {
            mirror.lost(partitions);
        }
    }

    /** These partitions were assigned: the mirror prepares their fenced producers (never blocks). */
    void gained(Collection<TopicPartition> partitions) {
        if (mirror != null) {
            mirror.gained(partitions);
        }
    }

    /** Taken before every commit to the store: the mirror copies a commit only with a producer ready before it. */
    private long mark() {
        return mirror == null ? 0 : mirror.mark();
    }

    /**
     * ZooKeeper has committed these offsets (sent after {@code mark}): copy them to Kafka's group offsets if asked to
     * (never blocks).
     */
    private void mirror(Map<TopicPartition, Long> committed, long mark) {
        if (mirror != null) {
            mirror.offer(committed, mark);
        }
    }
}
