package io.groupkeeper.internal;

import io.groupkeeper.SeenOffset;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.internal.Lease;
import io.groupkeeper.spi.internal.OffsetSnapshot;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every partition this member wants or may hold, each in one {@link PartitionState}, with the transitions declared
 * there enforced here: each one logged (DEBUG; callers run with the member's group and id in the MDC: its lanes and
 * user-thread calls set it), an illegal one throws {@link IllegalStateException}, and a partition whose owner node may be
 * this member's leaves the table only with a {@link Proof}. Thread-safe; every method is short and makes no round trip,
 * so a connection loss is acted on at once even while a commit waits on the store.
 */
final class PartitionTable {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionTable.class);

    /** Why a partition that may hold this member's owner node can be forgotten. */
    enum Proof {
        /** The owner node was deleted by this member's release. */
        RELEASED,
        /** The store showed the owner node is not this member's in the lease's session (gone, or someone else's). */
        NOT_HELD
    }

    /** A final offset handed over during the revocation callback (with its done value), written with the release. */
    record FinalOffset(long offset, OptionalLong logEnd, Optional<String> done) {
        FinalOffset(long offset, OptionalLong logEnd) {
            this(offset, logEnd, Optional.empty());
        }
    }

    /**
     * One partition's entry. A claim makes a new entry, so "the same entry" means "the same claim": a commit that read an
     * entry applies its result only if the entry is still there. {@code version} and {@code offset} are what this
     * member last saw of the offset node (meaningful while held); {@code known}: user code was told it is assigned and
     * has not been asked to let go since.
     */
    static final class Entry {
        private PartitionState state;
        private final Lease lease;
        private long version;
        /** The incarnation of the offset node {@code version} belongs to (0: unknown); see OffsetSnapshot#created. */
        private long created;

        private OptionalLong offset;
        /** The done value stored beside {@code offset} as this member last saw it. */
        private Optional<String> done = Optional.empty();

        private boolean known;
        /** User code's onPartitionsAssigned for this claim has run: only then may it commit (see committable). */
        private boolean announced;

        private FinalOffset finalOffset;
        /**
         * The member read the offset node in another incarnation than {@link #created} (deleted and created again)
         * and has not adopted it yet. ZooKeeper checks a write's version, not the node's incarnation, and a new
         * incarnation's version may come round to {@link #version}: nothing is written on it until the node is read.
         */
        private volatile boolean recreated;

        private Entry(PartitionState state, Lease lease, long version, OptionalLong offset) {
            this.state = state;
            this.lease = lease;
            this.version = version;
            this.offset = offset;
        }

        PartitionState state() {
            return state;
        }

        Lease lease() {
            return lease;
        }

        long version() {
            return version;
        }

        long created() {
            return created;
        }

        OptionalLong offset() {
            return offset;
        }

        Optional<String> done() {
            return done;
        }

        boolean known() {
            return known;
        }

        /** See {@link #recreated}. */
        boolean recreated() {
            return recreated;
        }
    }

    private static final Lease NO_LEASE = new Lease(0, 0);

    private final SortedMap<TopicPartition, Entry> entries = new TreeMap<>();

    // ------------------------------------------------------------------ queries

    synchronized SortedSet<TopicPartition> inState(PartitionState state) {
        return select(e -> e.state == state);
    }

    synchronized SortedSet<TopicPartition> owned() {
        return inState(PartitionState.OWNED);
    }

    /** The OWNED partitions user code has been told of: the member's assignment as its user sees it. */
    synchronized SortedSet<TopicPartition> announced() {
        return select(e -> e.state == PartitionState.OWNED && e.announced);
    }

    synchronized int ownedCount() {
        return (int) entries.values().stream()
                .filter(e -> e.state == PartitionState.OWNED)
                .count();
    }

    synchronized Optional<Entry> get(TopicPartition tp) {
        return Optional.ofNullable(entries.get(tp));
    }

    /** The entry of {@code tp} if it is OWNED. */
    synchronized Optional<Entry> owned(TopicPartition tp) {
        Entry e = entries.get(tp);
        return e != null && e.state == PartitionState.OWNED ? Optional.of(e) : Optional.empty();
    }

    /**
     * The entry of {@code tp} if user code may commit it: OWNED, or REVOKING (the revocation callback commits final
     * offsets).
     */
    synchronized Optional<Entry> committable(TopicPartition tp) {
        Entry e = entries.get(tp);
        return e != null && isCommittable(e) ? Optional.of(e) : Optional.empty();
    }

    /**
     * Committable: OWNED or REVOKING, and announced. A partition claimed again after a loss (a reconnection, a repaired
     * node) is not committable until user code has heard of the new claim: a commit from a thread still working from
     * the earlier claim would otherwise write a stale position over what the new claim read (an operator's repair).
     */
    private static boolean isCommittable(Entry e) {
        return e.announced && (e.state == PartitionState.OWNED || e.state == PartitionState.REVOKING);
    }

    /** User code is being told of the claim behind {@code entry}: commits for it are accepted from now on. */
    synchronized void announce(TopicPartition tp, Entry entry) {
        if (entries.get(tp) == entry) {
            entry.announced = true;
        }
    }

    /** Whether {@code entry} is still the committable entry of {@code tp} (the claim it came from still stands). */
    synchronized boolean stillOwned(TopicPartition tp, Entry entry) {
        return entries.get(tp) == entry && isCommittable(entry);
    }

    /** The done value of a committable partition as this member last saw it; empty when none or not committable. */
    synchronized Optional<String> done(TopicPartition tp) {
        Entry e = entries.get(tp);
        return e != null && isCommittable(e) ? e.done : Optional.empty();
    }

    /**
     * The stored offset of a committable partition as this member last saw it (claimed, adopted or committed): empty
     * when not committable (nothing seen), an empty offset when the node had none or its deletion was adopted.
     */
    synchronized SeenOffset seenOffset(TopicPartition tp) {
        Entry e = entries.get(tp);
        return e != null && isCommittable(e) ? SeenOffset.of(e.offset) : SeenOffset.notSeen();
    }

    synchronized OptionalLong fencingToken(TopicPartition tp) {
        Entry e = entries.get(tp);
        // Also while REVOKING: user code may still be finishing the batch it holds, and writing it under the token.
        return e != null && isCommittable(e) ? OptionalLong.of(e.lease.fencingToken()) : OptionalLong.empty();
    }

    /**
     * Partitions to claim among {@code wanted}: waiting ones, and stopped ones to re-confirm. Not a stopped one with a
     * final offset ({@link #stoppedWithFinalOffset}): a claim makes a new entry, and user code, told of the claim,
     * would start from the stored offset, not from what it handed over.
     */
    synchronized SortedSet<TopicPartition> claimable(Collection<TopicPartition> wanted) {
        SortedSet<TopicPartition> out = new TreeSet<>();
        for (TopicPartition tp : wanted) {
            Entry e = entries.get(tp);
            if (e == null
                    || e.state == PartitionState.WAITING
                    || e.state == PartitionState.STOPPED && e.finalOffset == null) {
                out.add(tp);
            }
        }
        return out;
    }

    /**
     * Stopped partitions holding a final offset handed over by a revocation that a connection in doubt (or a failed
     * release) cut short, wanted or not: each is released with its final offset first, then claimed again if wanted.
     */
    synchronized SortedSet<TopicPartition> stoppedWithFinalOffset() {
        return select(e -> e.state == PartitionState.STOPPED && e.finalOffset != null);
    }

    /** Partitions in {@code state} that are not in {@code wanted}. */
    synchronized SortedSet<TopicPartition> unwanted(PartitionState state, Collection<TopicPartition> wanted) {
        SortedSet<TopicPartition> out = select(e -> e.state == state);
        out.removeAll(wanted);
        return out;
    }

    private SortedSet<TopicPartition> select(Predicate<Entry> p) {
        SortedSet<TopicPartition> out = new TreeSet<>();
        entries.forEach((tp, e) -> {
            if (p.test(e)) {
                out.add(tp);
            }
        });
        return out;
    }

    // ------------------------------------------------------------------ transitions

    /** {@code tp} is wanted and not held: WAITING unless it already has an entry. */
    synchronized void want(TopicPartition tp) {
        if (entries.putIfAbsent(
                        tp, new Entry(PartitionState.WAITING, NO_LEASE, OffsetSnapshot.ABSENT, OptionalLong.empty()))
                == null) {
            LOG.debug("partition {} (none) -> {}", tp, PartitionState.WAITING);
        }
    }

    /** Forgets waiting partitions no longer wanted (they hold nothing). */
    synchronized void unwantWaiting(Collection<TopicPartition> wanted) {
        entries.entrySet().removeIf(en -> {
            boolean gone = en.getValue().state == PartitionState.WAITING && !wanted.contains(en.getKey());
            if (gone) {
                LOG.debug("partition {} {} -> (none): no longer wanted", en.getKey(), PartitionState.WAITING);
            }
            return gone;
        });
    }

    /** A claim succeeded: OWNED with a new entry (from WAITING, or STOPPED re-confirmed). */
    synchronized Entry own(TopicPartition tp, OffsetSnapshot offset, Lease lease) {
        Entry old = entries.get(tp);
        check(tp, old == null ? PartitionState.WAITING : old.state, PartitionState.OWNED);
        LOG.debug(
                "partition {} {} -> {} (session {})",
                tp,
                old == null ? PartitionState.WAITING : old.state,
                PartitionState.OWNED,
                lease.session());
        Entry e = new Entry(PartitionState.OWNED, lease, offset.version(), offset.offset());
        e.created = offset.created();
        e.done = offset.done();
        entries.put(tp, e);
        return e;
    }

    /**
     * A stopped partition whose final offset outlived its lease's session, claimed again in the current session to hand
     * that offset over: OWNED then at once REVOKING (both declared transitions, under the table's lock, so nothing sees
     * it owned), under the new lease, with the final offset kept if {@code keepFinal}, for the release to write.
     */
    synchronized Entry reclaimToHandOver(TopicPartition tp, OffsetSnapshot offset, Lease lease, boolean keepFinal) {
        Entry old = entries.get(tp);
        FinalOffset last = old == null ? null : old.finalOffset;
        Entry e = own(tp, offset, lease);
        check(tp, e.state, PartitionState.REVOKING);
        LOG.debug("partition {} {} -> {}: to hand its final offset over", tp, e.state, PartitionState.REVOKING);
        e.state = PartitionState.REVOKING;
        e.finalOffset = keepFinal ? last : null;
        return e;
    }

    /**
     * Stops {@code tp}: its owner node may be this member's (under {@code session} when the entry has no lease yet)
     * but nothing processes it. Returns whether it was OWNED (user code must hear it is lost).
     */
    synchronized boolean stop(TopicPartition tp, long session) {
        Entry old = entries.get(tp);
        PartitionState from = old == null ? PartitionState.WAITING : old.state;
        if (from == PartitionState.STOPPED) {
            return false;
        }
        check(tp, from, PartitionState.STOPPED);
        LOG.debug("partition {} {} -> {}", tp, from, PartitionState.STOPPED);
        Lease lease = old == null || old.lease == NO_LEASE ? new Lease(session, 0) : old.lease;
        Entry e = new Entry(
                PartitionState.STOPPED,
                lease,
                old == null ? OffsetSnapshot.ABSENT : old.version,
                old == null ? OptionalLong.empty() : old.offset);
        e.created = old == null ? 0 : old.created;
        e.done = old == null ? Optional.empty() : old.done;
        e.known = old != null && old.known;
        e.finalOffset = old == null ? null : old.finalOffset; // handed over, not yet written: its release writes it
        entries.put(tp, e);
        return from == PartitionState.OWNED;
    }

    /** Stops every held partition (the connection is in doubt). Returns the ones that were OWNED. */
    synchronized SortedSet<TopicPartition> stopAllHeld() {
        SortedSet<TopicPartition> lost = new TreeSet<>();
        for (TopicPartition tp : select(e -> e.state == PartitionState.OWNED || e.state == PartitionState.REVOKING)) {
            if (stop(tp, 0)) {
                lost.add(tp);
            }
        }
        return lost;
    }

    /** OWNED → REVOKING for those of {@code tps} still owned; returns them. */
    synchronized SortedSet<TopicPartition> beginRevocation(Collection<TopicPartition> tps) {
        SortedSet<TopicPartition> out = new TreeSet<>();
        for (TopicPartition tp : tps) {
            Entry e = entries.get(tp);
            if (e != null && e.state == PartitionState.OWNED) {
                check(tp, e.state, PartitionState.REVOKING);
                LOG.debug("partition {} {} -> {}", tp, e.state, PartitionState.REVOKING);
                e.state = PartitionState.REVOKING;
                out.add(tp);
            }
        }
        return out;
    }

    /**
     * During the revocation callback: keeps a final offset for a partition being revoked; false if it is not, or if
     * user code has not heard of the claim being revoked (claimed again after a loss and revoked before its assignment
     * was served): any offset handed over then is a position of an earlier claim, and written with this claim's
     * release it would move the node back over what others committed since.
     */
    synchronized boolean handOver(TopicPartition tp, FinalOffset offset) {
        Entry e = entries.get(tp);
        if (e == null || e.state != PartitionState.REVOKING || !e.announced) {
            return false;
        }
        e.finalOffset = offset;
        return true;
    }

    /** The revoking entries of {@code tps} with their final offsets (null where none was handed over). */
    synchronized Map<TopicPartition, Entry> revoking(Collection<TopicPartition> tps) {
        Map<TopicPartition, Entry> out = new TreeMap<>();
        for (TopicPartition tp : tps) {
            Entry e = entries.get(tp);
            if (e != null && e.state == PartitionState.REVOKING) {
                out.put(tp, e);
            }
        }
        return out;
    }

    static Optional<FinalOffset> finalOffset(Entry e) {
        return Optional.ofNullable(e.finalOffset);
    }

    /** User code was told {@code tp} is assigned (or, with false, was asked to let it go). */
    synchronized void markKnown(TopicPartition tp, boolean known) {
        Entry e = entries.get(tp);
        if (e != null) {
            e.known = known;
        }
    }

    /**
     * A commit landed for {@code entry}: remember the version, the node's incarnation ({@code created}, 0 when the
     * store did not say) and offset if it is still the partition's entry.
     */
    synchronized boolean committed(TopicPartition tp, Entry entry, long newVersion, long created, long offset) {
        return committed(tp, entry, newVersion, created, offset, Optional.empty());
    }

    /** As above, with the done value the commit wrote. */
    synchronized boolean committed(
            TopicPartition tp, Entry entry, long newVersion, long created, long offset, Optional<String> done) {
        if (entries.get(tp) != entry) {
            return false;
        }
        if (created != 0 || entry.version == OffsetSnapshot.ABSENT) {
            entry.created = created; // a commit that created the node learns its incarnation here, not at a read
            entry.recreated = false;
        }
        entry.version = newVersion;
        entry.offset = OptionalLong.of(offset);
        entry.done = done;
        return isCommittable(entry);
    }

    /** An external write was adopted for {@code entry}. */
    synchronized boolean adopted(TopicPartition tp, Entry entry, OffsetSnapshot now) {
        if (!stillOwned(tp, entry)) {
            return false;
        }
        entry.version = now.version();
        entry.created = now.created();
        entry.recreated = false;
        entry.offset = now.offset();
        entry.done = now.done();
        return true;
    }

    /**
     * The offset node of {@code tp}, owned as {@code entry}, was read in incarnation {@code created} (0: unknown): if
     * that is not the entry's, no write goes on the entry's version until the node is read again ({@link
     * Entry#recreated}).
     */
    synchronized void sawIncarnation(TopicPartition tp, Entry entry, long created) {
        if (entries.get(tp) == entry && created != 0 && entry.created != 0 && created != entry.created) {
            entry.recreated = true;
        }
    }

    /**
     * Forgets {@code tp}'s entry {@code entry} (only if it is still the current one), with the proof that its owner
     * node is not this member's (null only for a WAITING one). Still wanted, it goes back to WAITING.
     */
    synchronized boolean forget(TopicPartition tp, Entry entry, Proof proof, boolean stillWanted) {
        if (entries.get(tp) != entry) {
            return false;
        }
        if (proof == null && entry.state.holdsOwnerNode()) {
            throw new IllegalStateException(tp + " is " + entry.state + ": forgetting it needs a proof");
        }
        LOG.debug(
                "partition {} {} -> {}{}",
                tp,
                entry.state,
                stillWanted ? PartitionState.WAITING : "(none)",
                proof == null ? "" : " (" + proof.name().toLowerCase() + ")");
        if (stillWanted) {
            entries.put(tp, new Entry(PartitionState.WAITING, NO_LEASE, OffsetSnapshot.ABSENT, OptionalLong.empty()));
        } else {
            entries.remove(tp);
        }
        return true;
    }

    /** Everything, for close once every held partition was released or proven not held. */
    synchronized void clear() {
        entries.clear();
    }

    private static void check(TopicPartition tp, PartitionState from, PartitionState to) {
        if (!from.next().contains(to)) {
            throw new IllegalStateException("partition " + tp + ": no transition " + from + " -> " + to);
        }
    }

    @Override
    public synchronized String toString() {
        Map<TopicPartition, PartitionState> states = new TreeMap<>();
        entries.forEach((tp, e) -> states.put(tp, e.state));
        return states.toString();
    }
}
