package io.groupkeeper.internal;

import io.groupkeeper.CommitResult;
import io.groupkeeper.CommitResult.Status;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.log.internal.LogContext;
import io.groupkeeper.spi.CorruptNodeException;
import io.groupkeeper.spi.internal.CommitOutcome;
import io.groupkeeper.spi.internal.CommitRequest;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.OffsetSnapshot;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The member's offsets: fenced commits and refreshes from the user's thread, final offsets handed over during a
 * revocation, and the check for external edits (I4) when an owned partition's offset node changes. A stored offset
 * that moved is adopted if this member still holds the partition; a partition found held by someone else is lost; a
 * partition whose offset node cannot be decoded is stopped — never forgotten, since its owner node is still ours.
 */
final class OffsetCommitter {

    private static final Logger LOG = LoggerFactory.getLogger(OffsetCommitter.class);

    private final MemberConfig config;
    private final GroupStore store;
    private final PartitionTable table;
    private final ListenerInvoker invoker;
    private final LogContext log;
    private final LongSupplier generation;
    private final Runnable onLost;
    /** Serialises commits and refreshes with each other and with the lane's check for external edits. */
    private final ReentrantLock lock = new ReentrantLock();
    /**
     * Under {@link #lock}: per partition, the values of this member's commits whose outcome it does not know (the
     * store failed, for example the reply was lost, after the write may have landed), for the entry they were sent
     * for. A stored value found later that is one of them is this member's own write, not an external edit.
     */
    private final Map<TopicPartition, Unconfirmed> unconfirmed = new HashMap<>();

    /** The values of commits sent for {@code entry} whose outcome is unknown, oldest first (at most a few). */
    private record Unconfirmed(PartitionTable.Entry entry, List<CommitRequest> requests) {

        private static final int MAX = 8;

        boolean wrote(OffsetSnapshot now) {
            return requests.stream()
                    .anyMatch(r -> now.offset().equals(OptionalLong.of(r.offset()))
                            && now.metadata().equals(r.metadata())
                            && now.done().equals(r.done()));
        }
    }

    OffsetCommitter(
            MemberConfig config,
            GroupStore store,
            PartitionTable table,
            ListenerInvoker invoker,
            LogContext log,
            LongSupplier generation,
            Runnable onLost) {
        this.config = config;
        this.store = store;
        this.table = table;
        this.invoker = invoker;
        this.log = log;
        this.generation = generation;
        this.onLost = onLost;
    }

    CommitResult commit(Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> logEndOffsets) {
        return commit(offsets, logEndOffsets, Map.of());
    }

    /** {@code metadata}: each partition's offset metadata (absent: ""). */
    CommitResult commit(
            Map<TopicPartition, Long> offsets,
            Map<TopicPartition, Long> logEndOffsets,
            Map<TopicPartition, String> metadata) {
        return commit(offsets, logEndOffsets, metadata, Map.of());
    }

    /** {@code done}: each partition's done value, written beside its offset (absent: none, which clears it). */
    CommitResult commit(
            Map<TopicPartition, Long> offsets,
            Map<TopicPartition, Long> logEndOffsets,
            Map<TopicPartition, String> metadata,
            Map<TopicPartition, String> done) {
        requireValidOffsets(offsets);
        requireValidDone(done);
        long started = System.nanoTime();
        Map<TopicPartition, Status> statuses = new HashMap<>();
        Map<TopicPartition, OptionalLong> adopted = new HashMap<>();
        SortedSet<TopicPartition> lost = new TreeSet<>();
        lock.lock();
        try {
            List<CommitRequest> requests = new ArrayList<>();
            Map<TopicPartition, PartitionTable.Entry> seen = new HashMap<>();
            offsets.forEach((tp, offset) -> {
                Optional<PartitionTable.Entry> e = table.committable(tp);
                if (e.isEmpty()) {
                    statuses.put(tp, Status.NOT_OWNED);
                    return;
                }
                if (e.get().recreated()) {
                    // As ZooKeeper would answer a write it could check the incarnation of: the node moved; read it.
                    resolve(tp, e.get(), statuses, adopted, lost);
                    return;
                }
                seen.put(tp, e.get());
                Long logEnd = logEndOffsets.get(tp);
                requests.add(new CommitRequest(
                        tp,
                        offset,
                        e.get().version(),
                        e.get().lease().session(),
                        logEnd == null ? OptionalLong.empty() : OptionalLong.of(logEnd),
                        metadata.getOrDefault(tp, ""),
                        Optional.ofNullable(done.get(tp))));
            });
            if (!requests.isEmpty()) {
                CommitOutcome outcome;
                try {
                    outcome = store.commit(config.memberId(), generation.getAsLong(), requests);
                } catch (RuntimeException e) {
                    requests.forEach(r -> remember(r, seen.get(r.partition())));
                    throw e;
                }
                for (CommitRequest r : requests) {
                    TopicPartition tp = r.partition();
                    Long newVersion = outcome.committed().get(tp);
                    if (newVersion == null) {
                        resolve(tp, seen.get(tp), statuses, adopted, lost);
                    } else {
                        unconfirmed.remove(tp);
                        // Lost meanwhile (connection in doubt): written while still the owner, but not owned now.
                        boolean owned = table.committed(
                                tp, seen.get(tp), newVersion, outcome.createdOf(tp), r.offset(), r.done());
                        statuses.put(tp, owned ? Status.COMMITTED : Status.NOT_OWNED);
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        reportLost(lost, "commit fenced");
        config.metrics()
                .committed(
                        config.groupId(),
                        config.memberId(),
                        count(statuses, Status.COMMITTED),
                        count(statuses, Status.ADOPTED),
                        count(statuses, Status.NOT_OWNED),
                        System.nanoTime() - started);
        return CommitResult.of(statuses, adopted);
    }

    /** From the revocation callback: final offsets written with the release; returns the partitions taken. */
    SortedSet<TopicPartition> commitOnRelease(Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> logEnds) {
        return commitOnRelease(offsets, logEnds, Map.of());
    }

    /** As above, with each partition's done value (absent: none). */
    SortedSet<TopicPartition> commitOnRelease(
            Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> logEnds, Map<TopicPartition, String> done) {
        requireValidOffsets(offsets);
        requireValidDone(done);
        SortedSet<TopicPartition> taken = new TreeSet<>();
        offsets.forEach((tp, offset) -> {
            Long logEnd = logEnds.get(tp);
            if (table.handOver(
                    tp,
                    new PartitionTable.FinalOffset(
                            offset,
                            logEnd == null ? OptionalLong.empty() : OptionalLong.of(logEnd),
                            Optional.ofNullable(done.get(tp))))) {
                taken.add(tp);
            }
        });
        return taken;
    }

    CommitResult refresh(Collection<TopicPartition> partitions) {
        Map<TopicPartition, Status> statuses = new HashMap<>();
        Map<TopicPartition, OptionalLong> adopted = new HashMap<>();
        SortedSet<TopicPartition> lost = new TreeSet<>();
        lock.lock();
        try {
            for (TopicPartition tp : new TreeSet<>(partitions)) {
                Optional<PartitionTable.Entry> e = table.committable(tp);
                if (e.isEmpty()) {
                    statuses.put(tp, Status.NOT_OWNED);
                } else {
                    resolve(tp, e.get(), statuses, adopted, lost);
                }
            }
        } finally {
            lock.unlock();
        }
        reportLost(lost, "offset node taken over");
        return CommitResult.of(statuses, adopted);
    }

    /**
     * Under {@link #lock}: the stored offset of a partition owned as {@code entry} may have moved; adopt it, give the
     * partition up (held by someone else), or stop it (its offset node is corrupt: the owner node stays ours until the
     * reconciler re-confirms or releases it). Applies only if {@code entry} is still the partition's entry.
     */
    private void resolve(
            TopicPartition tp,
            PartitionTable.Entry entry,
            Map<TopicPartition, Status> statuses,
            Map<TopicPartition, OptionalLong> adopted,
            SortedSet<TopicPartition> lost) {
        Optional<OffsetSnapshot> now;
        try {
            now = store.readIfOwned(tp, config.memberId(), entry.lease().session());
        } catch (CorruptNodeException e) {
            LOG.error("{}; stopped {} until the node is fixed (other partitions are unaffected)", e.getMessage(), tp);
            statuses.put(tp, Status.NOT_OWNED);
            if (table.stillOwned(tp, entry) && table.stop(tp, entry.lease().session())) {
                lost.add(tp);
            }
            return;
        }
        if (!table.stillOwned(tp, entry)) {
            statuses.put(tp, Status.NOT_OWNED); // lost meanwhile
        } else if (now.isEmpty()) {
            statuses.put(tp, Status.NOT_OWNED);
            if (table.forget(tp, entry, PartitionTable.Proof.NOT_HELD, true)) {
                lost.add(tp); // not if the connection's loss stopped it meanwhile: that told the listener already
            }
        } else if (now.get().differsFrom(entry.version(), entry.created()) && ownWrite(tp, entry, now.get())) {
            LOG.info(
                    "stored offset of {} is {} (node version {} -> {}): this member's own commit, whose outcome it did "
                            + "not know, landed",
                    tp,
                    describe(now.get().offset()),
                    entry.version(),
                    now.get().version());
            statuses.put(
                    tp,
                    table.committed(
                                    tp,
                                    entry,
                                    now.get().version(),
                                    now.get().created(),
                                    now.get().offset().getAsLong(),
                                    now.get().done())
                            ? Status.UNCHANGED
                            : Status.NOT_OWNED);
        } else if (now.get().differsFrom(entry.version(), entry.created())) {
            unconfirmed.remove(tp);
            LOG.warn(
                    "stored offset of {} was changed externally to {} (node version {} -> {}); adopting it",
                    tp,
                    describe(now.get().offset()),
                    entry.version(),
                    now.get().version());
            if (table.adopted(tp, entry, now.get())) {
                statuses.put(tp, Status.ADOPTED);
                adopted.put(tp, now.get().offset());
            } else {
                statuses.put(tp, Status.NOT_OWNED);
            }
        } else {
            statuses.put(tp, Status.UNCHANGED);
        }
    }

    /** Under {@link #lock}: {@code r}, sent for {@code entry}, may have landed or not. */
    private void remember(CommitRequest r, PartitionTable.Entry entry) {
        Unconfirmed u = unconfirmed.get(r.partition());
        List<CommitRequest> values = new ArrayList<>(u == null || u.entry() != entry ? List.of() : u.requests());
        values.add(r);
        if (values.size() > Unconfirmed.MAX) {
            values.remove(0);
        }
        unconfirmed.put(r.partition(), new Unconfirmed(entry, List.copyOf(values)));
    }

    /**
     * Under {@link #lock}: whether {@code now}, read for {@code entry}, holds a value one of this member's commits of
     * unknown outcome wrote for that entry: then it is that commit landed, not an operator's edit (an edit to exactly
     * the same offset, metadata and done value would change nothing this member does). Forgets them either way: the
     * node has moved on from the version they were sent for.
     */
    private boolean ownWrite(TopicPartition tp, PartitionTable.Entry entry, OffsetSnapshot now) {
        Unconfirmed u = unconfirmed.remove(tp);
        return u != null && u.entry() == entry && now.offset().isPresent() && u.wrote(now);
    }

    /**
     * On the lane: reads an owned partition's offset node, arming {@code onChange} for its next change, and tells user
     * code when it differs from what this member last saw (I4). Compared under {@link #lock}, so a read that overtook
     * this member's own commit raises no false alarm; the lane never waits long for it: a commit stuck in a store retry
     * must not delay connection handling. Returns false when it could not take the lock (the caller retries soon).
     */
    boolean checkExternalEdit(TopicPartition tp, Runnable onChange) {
        boolean locked;
        try {
            locked = lock.tryLock(50, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
        if (!locked) {
            return false;
        }
        boolean moved;
        try {
            Optional<PartitionTable.Entry> e = table.owned(tp);
            if (e.isEmpty()) {
                return true;
            }
            OffsetSnapshot now = null;
            try {
                now = store.readOffset(tp, onChange);
            } catch (CorruptNodeException corrupt) {
                // A hand edit gone wrong: user code refreshes, which stops the partition until the node is fixed.
            }
            // Not just the version: a node deleted and created again starts again at version 0 and may come round to
            // the version this member last saw, in another incarnation.
            moved = now == null || now.differsFrom(e.get().version(), e.get().created());
            if (now != null) {
                table.sawIncarnation(tp, e.get(), now.created());
            }
        } finally {
            lock.unlock();
        }
        if (moved) {
            invoker.offsetsChanged(new TreeSet<>(List.of(tp)));
        }
        return true;
    }

    private void reportLost(SortedSet<TopicPartition> lost, String why) {
        if (!lost.isEmpty()) {
            config.metrics().partitionsLost(config.groupId(), config.memberId(), lost.size());
            LOG.warn("lost {} ({}): no longer processed by this member", lost, why);
            invoker.lost(lost);
            onLost.run();
        }
    }

    static void requireValidOffsets(Map<TopicPartition, Long> offsets) {
        offsets.forEach((tp, offset) -> {
            if (offset == null || offset < 0) {
                throw new IllegalArgumentException("offset for " + tp + " must be >= 0, was " + offset);
            }
        });
    }

    /**
     * A done value is one JSON object (the store writes it into the node's body as it is): refused here when it
     * plainly is not one, so that a final commit handed over for a release cannot fail later; the store parses it.
     */
    static void requireValidDone(Map<TopicPartition, String> done) {
        done.forEach((tp, value) -> {
            String v = value == null ? null : value.strip();
            if (v == null || v.length() < 2 || v.charAt(0) != '{' || v.charAt(v.length() - 1) != '}') {
                throw new IllegalArgumentException("done value for " + tp + " must be one JSON object, was "
                        + (value == null ? "null" : "'" + abbreviate(value) + "'"));
            }
        });
    }

    private static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "…";
    }

    private static int count(Map<TopicPartition, Status> statuses, Status status) {
        return (int) statuses.values().stream().filter(s -> s == status).count();
    }

    static String describe(OptionalLong offset) {
        return offset.isPresent() ? String.valueOf(offset.getAsLong()) : "(none)";
    }
}
