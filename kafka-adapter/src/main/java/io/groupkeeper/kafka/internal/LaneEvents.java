package io.groupkeeper.kafka.internal;

import io.groupkeeper.SeenOffset;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.kafka.internal.LaneBridge.Assigned;
import io.groupkeeper.kafka.internal.LaneBridge.ConnectionDown;
import io.groupkeeper.kafka.internal.LaneBridge.Event;
import io.groupkeeper.kafka.internal.LaneBridge.Lost;
import io.groupkeeper.kafka.internal.LaneBridge.OffsetsChanged;
import io.groupkeeper.kafka.internal.LaneBridge.Revoked;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The polling thread's side of the {@link LaneBridge}: serves the queued events — partitions assigned (resolve, fetch,
 * tell the user), revoked (tell the user, hand over the final positions, drop), lost or cut off by a connection loss
 * (drop without a commit), offsets changed by someone else (re-read and adopt). Polling thread only.
 */
final class LaneEvents {

    // The adapter's one logger: users' logging configurations and the tests name it.
    private static final Logger LOG = LoggerFactory.getLogger(DefaultCoordinatedConsumer.class);

    private final LaneBridge bridge;
    private final Positions positions;
    private final PositionResolver resolver;
    private final PositionCommitter committer;
    private final ConsumerSync<?, ?> sync;
    private final RebalanceListenerInvoker listener;
    private boolean serving;

    LaneEvents(
            LaneBridge bridge,
            Positions positions,
            PositionResolver resolver,
            PositionCommitter committer,
            ConsumerSync<?, ?> sync,
            RebalanceListenerInvoker listener) {
        this.bridge = bridge;
        this.positions = positions;
        this.resolver = resolver;
        this.committer = committer;
        this.sync = sync;
        this.listener = listener;
    }

    /**
     * Serves every queued event; does nothing when called again from inside (the user's listener may call
     * {@code commitSync()}).
     */
    void serve() {
        if (serving) {
            return;
        }
        serving = true;
        try {
            for (Event e; (e = bridge.next()) != null; ) {
                handle(e);
            }
        } finally {
            serving = false;
        }
    }

    private void handle(Event event) {
        if (event instanceof Assigned a) {
            onAssigned(stillOwned(a));
        } else if (event instanceof Revoked r) {
            try {
                onRevoked(r.partitions());
            } finally {
                r.served().complete(null); // the member may release them now
            }
        } else if (event instanceof Lost l) {
            onLost(l.partitions());
        } else if (event instanceof OffsetsChanged o) {
            onOffsetsChanged(o.partitions());
        } else if (event instanceof ConnectionDown && !positions.isEmpty()) {
            onLost(positions.owned());
        }
    }

    /**
     * The partitions of a queued assignment still owned under the claim they were assigned with. One served late (the
     * user's thread was busy past a revocation timeout, or the session was lost meanwhile) may name partitions that
     * were released and claimed by another owner since: claiming them here (a transactional claim's
     * {@code initTransactions()} above all) would act for a partition this member no longer owns, with the stale
     * offset it was assigned with.
     */
    private SortedMap<TopicPartition, OptionalLong> stillOwned(Assigned a) {
        SortedMap<TopicPartition, OptionalLong> out = new TreeMap<>();
        SortedSet<TopicPartition> stale = new TreeSet<>();
        a.partitions().forEach((tp, stored) -> {
            OptionalLong issued = a.tokens().get(tp);
            OptionalLong now = issued == null ? null : bridge.token(tp);
            if (issued != null && (issued.isEmpty() || !issued.equals(now))) {
                stale.add(tp);
            } else {
                out.put(tp, stored);
            }
        });
        if (!stale.isEmpty()) {
            LOG.info(
                    "the queued assignment of {} is stale (revoked or lost, and maybe claimed by another owner, "
                            + "before this thread served it); not claimed",
                    stale);
        }
        return out;
    }

    private void onAssigned(SortedMap<TopicPartition, OptionalLong> assigned) {
        if (assigned.isEmpty()) {
            return;
        }
        boolean again = false;
        for (TopicPartition tp : assigned.keySet()) {
            again |= positions.remove(tp) != null;
        }
        if (again) {
            sync.sync(); // assigned again without a revocation in between (should not happen): start afresh
        }
        List<OwnedPartition> added = new ArrayList<>();
        assigned.forEach((tp, announced) -> {
            OptionalLong stored = startOf(tp, announced);
            OwnedPartition p = positions.add(tp, stored);
            OptionalLong token = bridge.token(tp);
            if (token != null && token.isPresent()) {
                p.token = token.getAsLong();
            }
            p.resumeOffset = stored; // (the claim's, or what it adopted: nothing here committed it since)
            p.resumeDone = committer.storedDone(tp);
            p.committedDone = p.resumeDone;
            added.add(p);
        });
        committer.gained(assigned.keySet()); // the offset mirror: fence the former owner's mirror producer
        committer.claimed(added); // the transactional mode: fence the former owners before the first fetch
        resolver.resolveSoon();
        List<OwnedPartition> started = resolver.resolveStarts(positions, sync);
        sync.sync();
        listener.assigned(Partitions.kafka(assigned.keySet()));
        committer.storeStarts(started); // after the listener: a position it sought is what is stored
    }

    /**
     * The offset a partition's claim starts from here: the one announced with the assignment, unless the member has
     * adopted an external change (an operator's reset, or a deletion of the offset) for this same claim since the
     * assignment was queued — then the adopted one, which the member now fences commits with; after a deletion none,
     * so the start position applies, as when the deletion is adopted later. Nothing else moves a claim's offset before
     * this thread serves it (a position of an earlier claim is never committed under it), so a different offset is a
     * newer node version, whatever its value. Starting from the announced one would write its positions over the
     * change. The adoption may have come through an event of the earlier claim served just before (its
     * {@code refresh} reads the node for the claim the member holds now, and the earlier claim's positions drop it).
     */
    private OptionalLong startOf(TopicPartition tp, OptionalLong announced) {
        SeenOffset seen = committer.seenOffset(tp);
        if (!seen.isSeen() || seen.offset().equals(announced)) {
            return announced; // (nothing seen: no longer owned; the loss queued behind this drops it)
        }
        OptionalLong now = seen.offset();
        LOG.info(
                "{} was assigned at {} and its stored offset changed externally to {} before this thread served "
                        + "the assignment; starting from {}",
                tp,
                announced.isPresent() ? announced.getAsLong() : "none",
                now.isPresent() ? now.getAsLong() : "none (deleted)",
                now.isPresent() ? now.getAsLong() : "the start position");
        return now;
    }

    private void onRevoked(SortedSet<TopicPartition> revoked) {
        List<OwnedPartition> mine = new ArrayList<>();
        for (TopicPartition tp : revoked) {
            OwnedPartition p = positions.get(tp);
            if (p != null) {
                mine.add(p);
            }
        }
        if (mine.isEmpty()) {
            return;
        }
        List<org.apache.kafka.common.TopicPartition> ktps = new ArrayList<>();
        mine.forEach(p -> ktps.add(p.ktp));
        listener.revoked(ktps);
        try {
            committer.commitFinal(mine);
        } catch (RuntimeException e) {
            LOG.warn(
                    "final commit of revoked {} failed (the next owner repeats from the last " + "commit): {}",
                    revoked,
                    e.toString());
        }
        mine.forEach(p -> positions.remove(p.tp));
        sync.sync();
    }

    private void onLost(SortedSet<TopicPartition> lost) {
        committer.lost(lost);
        List<org.apache.kafka.common.TopicPartition> ktps = new ArrayList<>();
        for (TopicPartition tp : lost) {
            OwnedPartition p = positions.remove(tp);
            if (p != null) {
                ktps.add(p.ktp);
            }
        }
        if (!ktps.isEmpty()) {
            sync.sync();
            listener.lost(ktps);
        }
    }

    private void onOffsetsChanged(SortedSet<TopicPartition> changed) {
        SortedSet<TopicPartition> mine = new TreeSet<>(changed);
        mine.retainAll(positions.owned());
        if (!mine.isEmpty() && committer.refresh(mine)) {
            sync.sync();
        }
    }
}
