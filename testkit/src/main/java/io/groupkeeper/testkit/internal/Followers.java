package io.groupkeeper.testkit.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Follower lag for reads: replicas of the tree that apply the ensemble's transactions late, as ZooKeeper's followers
 * do. A client's session reads from one follower (chosen by its id); each read moves that follower forward by a random
 * step to somewhere between what the session must see and the latest zxid. What a session must see only grows (never
 * backwards for one client): every transaction it sent (ZooKeeper's follower answers a write after applying it, even a
 * failed one), every notification handed to it, every watch it added, every {@code sync}; and no follower trails the
 * latest zxid by more than {@code maxLag} transactions. Not thread-safe: the {@link Ensemble} serialises access.
 */
final class Followers {

    private record Entry(long zxid, long session, List<Op> ops) {}

    private final Random random;
    private final int maxLag;
    private final DataTree[] trees;
    private final long[] applied;
    /** Transactions some follower has not applied yet, in zxid order. */
    private final ArrayDeque<Entry> log = new ArrayDeque<>();
    /** Per session: the zxid its reads must at least see. */
    private final Map<Long, Long> floor = new HashMap<>();

    Followers(int count, Random random, int maxLag) {
        this.random = random;
        this.maxLag = maxLag;
        this.trees = new DataTree[count];
        this.applied = new long[count];
        for (int i = 0; i < count; i++) {
            trees[i] = new DataTree();
        }
    }

    /** The leader applied a transaction: queued for the followers; none trails it by more than the bound. */
    void applied(long zxid, long session, List<Op> ops) {
        log.add(new Entry(zxid, session, ops));
        for (int f = 0; f < trees.length; f++) {
            if (applied[f] < zxid - maxLag) {
                catchUp(f, zxid - maxLag);
            }
        }
    }

    /** {@code session}'s reads must see at least {@code zxid} from now on. */
    void saw(long session, long zxid) {
        floor.merge(session, zxid, Math::max);
    }

    void forget(long session) {
        floor.remove(session);
    }

    /** The tree a read of {@code session} sees now (its follower, moved forward by a random step). */
    DataTree view(long session, long lastZxid) {
        int f = (int) Math.floorMod(session, (long) trees.length);
        long from = Math.max(applied[f], floor.getOrDefault(session, 0L));
        long target = from >= lastZxid ? lastZxid : from + random.nextInt((int) (lastZxid - from) + 1);
        catchUp(f, Math.max(from, Math.min(target, lastZxid)));
        return trees[f];
    }

    private void catchUp(int f, long zxid) {
        for (Entry e : log) {
            if (e.zxid() > zxid) {
                break;
            }
            if (e.zxid() > applied[f]) {
                try {
                    trees[f].multi(e.ops(), e.session(), e.zxid(), new ArrayList<>());
                } catch (KeeperFailure failure) {
                    throw new IllegalStateException(
                            "follower " + f + " cannot apply transaction " + e.zxid() + " that the leader applied",
                            failure);
                }
            }
        }
        applied[f] = Math.max(applied[f], zxid);
        long min = Long.MAX_VALUE;
        for (long a : applied) {
            min = Math.min(min, a);
        }
        while (!log.isEmpty() && log.peekFirst().zxid() <= min) {
            log.pollFirst();
        }
    }

    /**
     * The notification a data watch set on a lagging view of {@code path} must fire at once because the leader's node
     * differs ({@code null}: none), as the follower would fire it on applying what it lacks.
     */
    static WatchEvent.Type missedData(Node seen, Node now) {
        if (seen == null) {
            return now == null ? null : WatchEvent.Type.NODE_CREATED;
        }
        if (now == null || now.czxid != seen.czxid) {
            return WatchEvent.Type.NODE_DELETED;
        }
        return now.mzxid != seen.mzxid ? WatchEvent.Type.NODE_DATA_CHANGED : null;
    }

    /** As {@link #missedData}, for a child watch on a node the view has. */
    static WatchEvent.Type missedChildren(Node seen, Node now) {
        if (now == null || now.czxid != seen.czxid) {
            return WatchEvent.Type.NODE_DELETED;
        }
        return now.cversion != seen.cversion ? WatchEvent.Type.NODE_CHILDREN_CHANGED : null;
    }
}
