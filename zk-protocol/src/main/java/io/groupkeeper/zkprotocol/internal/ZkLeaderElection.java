package io.groupkeeper.zkprotocol.internal;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.assignor.Assignment;
import io.groupkeeper.spi.StoreException;
import io.groupkeeper.spi.internal.AssignmentSnapshot;
import io.groupkeeper.spi.internal.LeaderElection;
import io.groupkeeper.spi.internal.LeadershipListener;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkLatch;
import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.ZkPort;
import io.groupkeeper.zkprotocol.ZkResult;
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

/**
 * Leader election through the port's {@link ZkLatch} (Curator's {@code LeaderLatch} protocol: each participant watches
 * only its predecessor, so no herd), and the fenced publish of a generation.
 *
 * <p>Publishing writes only the targets that changed. Every transaction carries a check of this participant's
 * latch node (it is still a live participant) and of the assignment node's version (nobody published since the
 * leader read it). Targets are written in transactions of bounded size, the assignment node last: a leader that
 * dies in between leaves some targets of the next generation written, which is safe (ownership moves only through
 * owner nodes) and is superseded by the next leader's generation.
 */
final class ZkLeaderElection implements LeaderElection {

    private final ZkGroupStore store;
    private final ZkPort zk;
    private final String participantId;
    private final LeadershipListener listener;
    private final Clock clock;
    private final ZkLatch latch;
    private final TransactionBatcher batcher;

    ZkLeaderElection(ZkGroupStore store, String participantId, LeadershipListener listener, Clock clock) {
        this.store = store;
        this.zk = store.session();
        this.participantId = participantId;
        this.listener = listener;
        this.clock = clock;
        this.batcher = new TransactionBatcher(zk.transactionLimit(), zk::sizeOf);
        this.latch = zk.latch(ZkPaths.leader(store.groupId()), participantId, listener::isLeader, listener::notLeader);
    }

    @Override
    public void start() {
        try {
            latch.start();
        } catch (RuntimeException e) {
            throw ZkFailure.toStore("join leader election of " + store.groupId(), e);
        }
    }

    @Override
    public boolean isLeader() {
        return latch.hasLeadership();
    }

    @Override
    public long publish(
            long expectedVersion,
            long generation,
            Map<String, ? extends Set<TopicPartition>> changedTargets,
            Set<String> removedMembers,
            SortedSet<String> staticMembers) {
        String group = store.groupId();
        String latchPath = latch.ourPath();
        if (!latch.hasLeadership() || latchPath == null) {
            throw new StoreException("participant " + participantId + " is not the leader of group " + group);
        }
        AssignmentSnapshot before = store.cached();
        Set<String> existing = before != null && before.version() == expectedVersion
                ? before.targets().byMember().keySet()
                : null;
        String assignmentPath = ZkPaths.assignment(group);
        try {
            // One request per target written or deleted; each transaction also checks the latch node and sets the
            // assignment node, at the version the previous one left: a generation published only in part has moved
            // that version, so no reader (this leader's cache, the next leader's) can mistake the targets for the
            // snapshot it read before.
            List<ZkOp> writes = new ArrayList<>();
            for (Map.Entry<String, ? extends Set<TopicPartition>> e : changedTargets.entrySet()) {
                byte[] body = NodeCodec.target(new NodeCodec.TargetBody(
                        generation, new TreeSet<>(e.getValue()), staticMembers.contains(e.getKey())));
                String path = ZkPaths.target(group, e.getKey());
                boolean exists = existing != null
                        ? existing.contains(e.getKey())
                        : zk.exists(path, null).isPresent();
                writes.add(exists ? ZkOp.set(path, body, -1) : ZkOp.create(path, body));
            }
            for (String removed : removedMembers) {
                writes.add(ZkOp.delete(ZkPaths.target(group, removed), -1));
            }
            byte[] assignmentBody = NodeCodec.assignment(new NodeCodec.AssignmentBody(
                    generation, Optional.of(participantId), clock.instant(), changedTargets.size()));
            ZkOp latchCheck = ZkOp.check(latchPath, -1);
            long fixed =
                    batcher.bytes(List.of(latchCheck, ZkOp.set(assignmentPath, assignmentBody, (int) expectedVersion)));
            int version = (int) expectedVersion;
            for (TransactionBatcher.Batch<ZkOp> batch : batcher.split(writes, fixed, List::of)) {
                List<ZkOp> ops = new ArrayList<>();
                ops.add(latchCheck);
                ops.addAll(batch.ops());
                ops.add(ZkOp.set(assignmentPath, assignmentBody, version));
                List<ZkResult> results = zk.multi(ops);
                version = results.get(results.size() - 1).stat().version();
            }
            if (before != null && before.version() == expectedVersion) {
                store.remember(next(before, generation, changedTargets, removedMembers, staticMembers, version));
            }
            return version;
        } catch (ZkFailure e) {
            store.remember(null);
            throw new StoreException(
                    "publish of generation " + generation + " for group " + group
                            + " refused (" + e.code() + " at operation " + e.failedOp()
                            + "): leadership lost or another leader published",
                    e);
        } catch (StoreException e) {
            store.remember(null);
            throw e;
        } catch (Exception e) {
            store.remember(null);
            throw ZkFailure.toStore("publish generation " + generation + " of " + group, e);
        }
    }

    private AssignmentSnapshot next(
            AssignmentSnapshot before,
            long generation,
            Map<String, ? extends Set<TopicPartition>> changed,
            Set<String> removed,
            SortedSet<String> staticMembers,
            int version) {
        SortedMap<String, Set<TopicPartition>> targets =
                new TreeMap<>(before.targets().byMember());
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
        latch.close();
    }
}
