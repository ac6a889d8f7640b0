package io.groupkeeper.zookeeper.internal;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.assignor.Assignment;
import io.groupkeeper.spi.AssignmentSnapshot;
import io.groupkeeper.spi.LeaderElection;
import io.groupkeeper.spi.LeadershipListener;
import io.groupkeeper.spi.StoreException;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * Leader election with Curator's {@link LeaderLatch} (each participant watches only its predecessor, so no herd),
 * and the fenced publish of a generation.
 *
 * <p>Publishing writes only the targets that changed. Every transaction carries a check of this participant's
 * latch node (it is still a live participant) and of the assignment node's version (nobody published since the
 * leader read it). Targets are written in transactions of bounded size, the assignment node last: a leader that
 * dies in between leaves some targets of the next generation written, which is safe (ownership moves only through
 * owner nodes) and is superseded by the next leader's generation.
 */
final class ZkLeaderElection implements LeaderElection {

    private final ZkGroupStore store;
    private final ZkSession zk;
    private final String participantId;
    private final LeadershipListener listener;
    private final Clock clock;
    private final LeaderLatch latch;
    private final TransactionBatcher batcher = new TransactionBatcher();

    ZkLeaderElection(ZkGroupStore store, String participantId, LeadershipListener listener, Clock clock) {
        this.store = store;
        this.zk = store.session();
        this.participantId = participantId;
        this.listener = listener;
        this.clock = clock;
        this.latch = new LeaderLatch(zk.client(), ZkPaths.leader(store.groupId()), participantId);
        this.latch.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                listener.isLeader();
            }

            @Override
            public void notLeader() {
                listener.notLeader();
            }
        });
    }

    @Override
    public void start() {
        try {
            latch.start();
        } catch (Exception e) {
            throw ZkSession.failure("join leader election of " + store.groupId(), e);
        }
    }

    @Override
    public boolean isLeader() {
        return latch.hasLeadership();
    }

    @Override
    public long publish(long expectedVersion, long generation, Map<String, ? extends Set<TopicPartition>> changedTargets,
                        Set<String> removedMembers, SortedSet<String> staticMembers) {
        String group = store.groupId();
        String latchPath = latch.getOurPath();
        if (!latch.hasLeadership() || latchPath == null) {
            throw new StoreException("participant " + participantId + " is not the leader of group " + group);
        }
        AssignmentSnapshot before = store.cached();
        Set<String> existing = before != null && before.version() == expectedVersion
                ? before.targets().byMember().keySet() : null;
        String assignmentPath = ZkPaths.assignment(group);
        try {
            // One request per target written or deleted; each transaction also checks the latch node and sets the
            // assignment node, at the version the previous one left: a generation published only in part has moved
            // that version, so no reader (this leader's cache, the next leader's) can mistake the targets for the
            // snapshot it read before.
            List<CuratorOp> writes = new ArrayList<>();
            for (Map.Entry<String, ? extends Set<TopicPartition>> e : changedTargets.entrySet()) {
                byte[] body = NodeCodec.target(new NodeCodec.TargetBody(generation, new TreeSet<>(e.getValue()),
                        staticMembers.contains(e.getKey())));
                String path = ZkPaths.target(group, e.getKey());
                boolean exists = existing != null ? existing.contains(e.getKey()) : zk.exists(path, null) != null;
                writes.add(exists
                        ? zk.client().transactionOp().setData().forPath(path, body)
                        : zk.client().transactionOp().create().withMode(CreateMode.PERSISTENT).forPath(path, body));
            }
            for (String removed : removedMembers) {
                writes.add(zk.client().transactionOp().delete().forPath(ZkPaths.target(group, removed)));
            }
            byte[] assignmentBody = NodeCodec.assignment(new NodeCodec.AssignmentBody(generation,
                    Optional.of(participantId), clock.instant(), changedTargets.size()));
            CuratorOp latchCheck = zk.client().transactionOp().check().forPath(latchPath);
            long fixed = TransactionBatcher.bytes(List.of(latchCheck,
                    zk.client().transactionOp().setData().withVersion((int) expectedVersion).forPath(assignmentPath,
                            assignmentBody)));
            int version = (int) expectedVersion;
            for (TransactionBatcher.Batch<CuratorOp> batch : batcher.split(writes, fixed, List::of)) {
                List<CuratorOp> ops = new ArrayList<>();
                ops.add(latchCheck);
                ops.addAll(batch.ops());
                ops.add(zk.client().transactionOp().setData().withVersion(version).forPath(assignmentPath,
                        assignmentBody));
                List<CuratorTransactionResult> results = zk.multi(ops);
                version = results.get(results.size() - 1).getResultStat().getVersion();
            }
            if (before != null && before.version() == expectedVersion) {
                store.remember(next(before, generation, changedTargets, removedMembers, staticMembers, version));
            }
            return version;
        } catch (KeeperException e) {
            store.remember(null);
            throw new StoreException("publish of generation " + generation + " for group " + group
                    + " refused (" + e.code() + " at operation " + ZkSession.failedOp(e)
                    + "): leadership lost or another leader published", e);
        } catch (StoreException e) {
            store.remember(null);
            throw e;
        } catch (Exception e) {
            store.remember(null);
            throw ZkSession.failure("publish generation " + generation + " of " + group, e);
        }
    }

    private AssignmentSnapshot next(AssignmentSnapshot before, long generation,
                                    Map<String, ? extends Set<TopicPartition>> changed, Set<String> removed,
                                    SortedSet<String> staticMembers, int version) {
        SortedMap<String, Set<TopicPartition>> targets = new TreeMap<>(before.targets().byMember());
        targets.keySet().removeAll(removed);
        targets.putAll(changed);
        SortedSet<String> statics = new TreeSet<>(before.staticMembers());
        statics.removeAll(removed);
        statics.removeAll(changed.keySet());
        changed.keySet().stream().filter(staticMembers::contains).forEach(statics::add);
        return new AssignmentSnapshot(generation, Optional.of(participantId), Assignment.of(targets), statics, version);
    }

    @Override
    public void close() {
        try {
            latch.close(LeaderLatch.CloseMode.NOTIFY_LEADER);
        } catch (IOException | IllegalStateException e) {
            // already closed
        }
    }
}
