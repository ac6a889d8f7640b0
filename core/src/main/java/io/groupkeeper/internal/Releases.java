package io.groupkeeper.internal;

import io.groupkeeper.GroupKeeperException;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.log.internal.LogContext;
import io.groupkeeper.spi.CorruptNodeException;
import io.groupkeeper.spi.internal.ClaimResult;
import io.groupkeeper.spi.internal.CommitRequest;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.OffsetSnapshot;
import io.groupkeeper.spi.internal.ReleaseRequest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The member's releases, for the {@link Reconciler} (on its lane): revoked partitions with the final offsets handed
 * over, in as few transactions as the store allows; stopped partitions no longer wanted that this member still holds,
 * proven by a read in the lease's session; and final offsets that outlived their session, handed over in the next one.
 * A partition whose release fails stays STOPPED (with its final offset) and {@code retryLater} asks for a later step;
 * the others go on. Releases go by version only, never decoding an offset body, so a corrupt node can still be released.
 */
final class Releases {

    private static final Logger LOG = LoggerFactory.getLogger(Releases.class);
    private static final int RELEASE_ATTEMPTS = 5;

    private final MemberConfig config;
    private final GroupStore store;
    private final PartitionTable table;
    private final LogContext log;
    private final LongSupplier generation;
    /** The store's current session. */
    private final LongSupplier session;
    /** Asks for a later step, after a backoff. */
    private final Runnable retryLater;

    Releases(
            MemberConfig config,
            GroupStore store,
            PartitionTable table,
            LogContext log,
            LongSupplier generation,
            LongSupplier session,
            Runnable retryLater) {
        this.config = config;
        this.store = store;
        this.table = table;
        this.log = log;
        this.generation = generation;
        this.session = session;
        this.retryLater = retryLater;
    }

    /**
     * Releases the revoked partitions in as few transactions as the store allows, with the final offsets handed over
     * in the callback. Returns how many were revoked.
     */
    int releaseRevoked(SortedSet<TopicPartition> revoke) {
        Map<TopicPartition, PartitionTable.Entry> entries = table.revoking(revoke);
        if (entries.isEmpty()) {
            return 0;
        }
        List<ReleaseRequest> requests = new ArrayList<>();
        int finals = 0;
        for (Map.Entry<TopicPartition, PartitionTable.Entry> en : entries.entrySet()) {
            PartitionTable.Entry e = en.getValue();
            // Not on a version a recreated node may have come round to: as a write ZooKeeper refused (I4).
            Optional<CommitRequest> commit = PartitionTable.finalOffset(e)
                    .filter(f -> !e.recreated())
                    .map(f -> new CommitRequest(
                            en.getKey(), f.offset(), e.version(), e.lease().session(), f.logEnd(), "", f.done()));
            finals += commit.isPresent() ? 1 : 0;
            requests.add(new ReleaseRequest(en.getKey(), e.version(), e.lease().session(), commit));
        }
        long started = System.nanoTime();
        int written = releaseFenced(requests, entries);
        if (finals > 0) {
            config.metrics()
                    .committed(
                            config.groupId(),
                            config.memberId(),
                            written,
                            0,
                            finals - written,
                            System.nanoTime() - started);
        }
        return entries.size();
    }

    /**
     * Releases stopped partitions no longer wanted (or holding a final offset: wanted again, they are claimed again
     * after it) whose owner nodes this member still holds; forgets the others. Each partition on its own: one that
     * cannot be read or released stays stopped for the next step.
     */
    void releaseStopped(SortedSet<TopicPartition> stale) {
        Map<TopicPartition, PartitionTable.Entry> held = new TreeMap<>();
        List<ReleaseRequest> requests = new ArrayList<>();
        boolean retry = false;
        for (TopicPartition tp : stale) {
            Optional<PartitionTable.Entry> e = table.get(tp).filter(x -> x.state() == PartitionState.STOPPED);
            if (e.isEmpty()) {
                continue;
            }
            try {
                PartitionTable.Entry entry = e.get();
                long session = entry.lease().session();
                if (session != this.session.getAsLong()
                        && PartitionTable.finalOffset(entry).isPresent()
                        && reclaimToHandOver(tp, entry, held, requests)) {
                    continue;
                }
                // With a final offset to write, the node's incarnation is read too (a node deleted and created again
                // restarts its version): one read either way.
                Optional<Optional<OffsetSnapshot>> read = readIfOwnedWithFinal(tp, entry, session);
                Optional<OffsetSnapshot> seen = read.orElse(Optional.empty());
                OptionalLong version = read.isPresent()
                        ? seen.map(o -> OptionalLong.of(o.version())).orElse(OptionalLong.empty())
                        : store.ownedVersion(tp, config.memberId(), session);
                if (version.isEmpty()) {
                    table.forget(tp, entry, PartitionTable.Proof.NOT_HELD, false);
                } else {
                    held.put(tp, entry);
                    // A final offset handed over whose release failed goes with this one, unless the node moved since.
                    long v = version.getAsLong();
                    Optional<CommitRequest> last = PartitionTable.finalOffset(entry)
                            .filter(f -> seen.isPresent() && !seen.get().differsFrom(entry.version(), entry.created()))
                            .map(f -> new CommitRequest(tp, f.offset(), v, session, f.logEnd(), "", f.done()));
                    requests.add(new ReleaseRequest(tp, v, session, last));
                }
            } catch (RuntimeException failure) {
                retry = true;
                LOG.warn("could not check {} (stays stopped, retrying): {}", tp, failure.toString());
            }
        }
        if (!requests.isEmpty()) {
            releaseFenced(requests, held);
            LOG.info(
                    "handed over {}, stopped here and moved to others meanwhile (or wanted again, after a final "
                            + "offset)",
                    held.keySet());
        }
        if (retry) {
            retryLater.run();
        }
    }

    /**
     * A final offset handed over in an earlier session, whose release failed and whose owner node went with that
     * session: the successor would start without it (and skip records when nothing was committed and it starts at the
     * log end). So the partition is claimed again in this session and released with the final offset, if the offset
     * node is still the write this member last saw there (nobody wrote it since, not even the same offset: {@link
     * GroupStore#unwrittenSince}). Returns false, changing nothing, when someone else holds it meanwhile or it cannot
     * be claimed: the caller then proves it not held, as for any stopped partition, and the final offset comes too
     * late.
     */
    private boolean reclaimToHandOver(
            TopicPartition tp,
            PartitionTable.Entry entry,
            Map<TopicPartition, PartitionTable.Entry> held,
            List<ReleaseRequest> requests) {
        PartitionTable.FinalOffset last = PartitionTable.finalOffset(entry).orElseThrow();
        ClaimResult result = store.claim(tp, config.memberId(), generation.getAsLong(), () -> {});
        if (!(result instanceof ClaimResult.Claimed claimed)) {
            LOG.warn(
                    "final offset {} of {} handed over in an earlier session comes too late: the partition is "
                            + "taken",
                    last.offset(),
                    tp);
            return false;
        }
        OffsetSnapshot now = claimed.offset();
        // The node's version, not its offset: an operator's write of the offset the member saw is still a write.
        boolean unchanged = store.unwrittenSince(tp, now, entry.version(), entry.created());
        held.put(tp, table.reclaimToHandOver(tp, now, claimed.lease(), unchanged));
        long session = claimed.lease().session();
        requests.add(new ReleaseRequest(
                tp,
                now.version(),
                session,
                unchanged
                        ? Optional.of(new CommitRequest(
                                tp, last.offset(), now.version(), session, last.logEnd(), "", last.done()))
                        : Optional.empty()));
        if (unchanged) {
            LOG.info("handing over final offset {} of {} from an earlier session", last.offset(), tp);
        } else {
            LOG.warn(
                    "final offset {} of {} from an earlier session not handed over: the offset node changed since "
                            + "(now {})",
                    last.offset(),
                    tp,
                    now.offset());
        }
        return true;
    }

    /**
     * For a stopped partition with a final offset: the offset node as read if this member holds {@code tp} in {@code
     * session} (empty inside: not held). Empty outside when there is no final offset, or the node cannot be decoded
     * (not the node the final offset was meant for): the caller then reads the version alone.
     */
    private Optional<Optional<OffsetSnapshot>> readIfOwnedWithFinal(
            TopicPartition tp, PartitionTable.Entry entry, long session) {
        if (PartitionTable.finalOffset(entry).isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(store.readIfOwned(tp, config.memberId(), session));
        } catch (CorruptNodeException e) {
            return Optional.empty();
        }
    }

    /**
     * Releases partitions together, then one by one those the store left out (their offset moved, their owner node is
     * gone; a final offset is then not written: fenced). A partition whose release fails stays STOPPED, so a later step
     * hands it over; the others go on. Returns how many final offsets were written.
     */
    private int releaseFenced(List<ReleaseRequest> requests, Map<TopicPartition, PartitionTable.Entry> entries) {
        Set<TopicPartition> released = new HashSet<>();
        boolean batchFailed = false;
        try {
            released.addAll(store.releaseAll(config.memberId(), generation.getAsLong(), requests));
        } catch (RuntimeException e) {
            batchFailed = true;
            LOG.warn("release of {} failed, releasing one by one: {}", entries.keySet(), e.toString());
        }
        int written = 0;
        boolean retry = false;
        for (ReleaseRequest r : requests) {
            TopicPartition tp = r.partition();
            PartitionTable.Entry e = entries.get(tp);
            if (batchFailed && !released.contains(tp)) {
                // The batch was not sent, or its answer was lost: this one again, alone, final offset and all. Should
                // that fail too, the partition stays stopped with its final offset, for a later step to write.
                try {
                    released.addAll(store.releaseAll(config.memberId(), generation.getAsLong(), List.of(r)));
                } catch (RuntimeException failure) {
                    retry = true;
                    table.stop(tp, r.session());
                    LOG.warn("could not release {} (stays stopped, retrying): {}", tp, failure.toString());
                    continue;
                }
            }
            if (released.contains(tp)) {
                written += r.finalCommit().isPresent() ? 1 : 0;
                table.forget(tp, e, PartitionTable.Proof.RELEASED, false);
                continue;
            }
            if (r.finalCommit().isPresent() && r.session() != session.getAsLong()) {
                // Its session ended before the final offset was written: stopped with it, for releaseStopped to hand
                // it over in this session (or learn that it comes too late).
                retry = true;
                table.stop(tp, r.session());
                continue;
            }
            if (r.finalCommit().isPresent()) {
                LOG.warn(
                        "final offset {} of {} not written with the release: its offset node changed "
                                + "meanwhile (an admin edit wins; or a first attempt whose answer was lost wrote it), or its "
                                + "owner node is gone; releasing it",
                        r.finalCommit().get().offset(),
                        tp);
            }
            try {
                release(tp, r.expectedVersion(), r.session());
                table.forget(tp, e, PartitionTable.Proof.RELEASED, false);
            } catch (RuntimeException failure) {
                retry = true;
                table.stop(tp, r.session());
                LOG.warn("could not release {} (stays stopped, retrying): {}", tp, failure.toString());
            }
        }
        if (retry) {
            retryLater.run();
        }
        return written;
    }

    /** Releases one partition, re-reading the offset node's version (never its body) while it keeps moving. */
    private void release(TopicPartition tp, long version, long inSession) {
        long expected = version;
        for (int attempt = 0; attempt < RELEASE_ATTEMPTS; attempt++) {
            if (store.release(tp, config.memberId(), expected, inSession)) {
                return;
            }
            OptionalLong now = store.ownedVersion(tp, config.memberId(), inSession);
            if (now.isEmpty()) {
                return; // not ours any more: nothing to release
            }
            expected = now.getAsLong();
        }
        throw new GroupKeeperException(
                "member " + log.member() + " could not release " + tp + ": its offset node keeps changing");
    }
}
