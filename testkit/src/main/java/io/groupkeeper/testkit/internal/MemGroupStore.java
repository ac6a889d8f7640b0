package io.groupkeeper.testkit.internal;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.assignor.Assignment;
import io.groupkeeper.spi.AssignmentSnapshot;
import io.groupkeeper.spi.ClaimResult;
import io.groupkeeper.spi.CommitOutcome;
import io.groupkeeper.spi.CommitRequest;
import io.groupkeeper.spi.CorruptNodeException;
import io.groupkeeper.spi.GroupStore;
import io.groupkeeper.spi.LeaderElection;
import io.groupkeeper.spi.Lease;
import io.groupkeeper.spi.LeadershipListener;
import io.groupkeeper.spi.MemberIdInUseException;
import io.groupkeeper.spi.MemberInfo;
import io.groupkeeper.spi.MembersSnapshot;
import io.groupkeeper.spi.OffsetSnapshot;
import io.groupkeeper.spi.OwnerInfo;
import io.groupkeeper.spi.Registration;
import io.groupkeeper.spi.ReleaseRequest;
import io.groupkeeper.spi.StoreException;
import io.groupkeeper.spi.TargetAssignment;
import io.groupkeeper.status.CommitSample;
import io.groupkeeper.testkit.NodeStat;
import io.groupkeeper.testkit.internal.Bodies.Offset;
import io.groupkeeper.testkit.internal.KeeperFailure.Code;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The protocol's primitives for one group on the modelled ensemble: a port of the ZooKeeper store's {@code
 * ZkGroupStore}, transaction for transaction, so that both stores behave the same through the SPI (the contract suite
 * holds them to it). What differs is only what a model does not need: no transaction chunking by size (the version
 * semantics are kept), no caching of the assignment, no overlapping of round trips. It is about as long as {@code
 * ZkGroupStore} because it is that class method for method: kept in one piece, the two can be read side by side when
 * either changes.
 *
 * <p>The fencing rests on the same rule: every change of an owner node (claim, re-confirmation) rewrites the offset
 * node in the same transaction, and every commit and release is conditioned on the offset node's version and runs only
 * in the session of the claim; so any other writer fences a stale one, and a node deleted and created again (version
 * back at 0) cannot be mistaken for the one a lease was taken on.
 */
public final class MemGroupStore implements GroupStore {

    private static final int MAX_CLAIM_ATTEMPTS = 8;

    private final MemClient zk;
    private final String group;
    private final Clock clock;
    private final Set<String> ensuredTopics = ConcurrentHashMap.newKeySet();
    private final MemMemberView members;
    private final Map<TopicPartition, List<CommitSample>> histories = new ConcurrentHashMap<>();

    public MemGroupStore(MemClient zk, String group, Clock clock) {
        this.zk = zk;
        this.group = group;
        this.clock = clock;
        this.members = new MemMemberView(zk, Paths.members(group));
    }

    @Override
    public String groupId() {
        return group;
    }

    MemClient client() {
        return zk;
    }

    // ------------------------------------------------------------------ group & members

    private List<String> folders() {
        return List.of(Paths.members(group), Paths.leader(group), Paths.owners(group), Paths.offsets(group));
    }

    @Override
    public void ensureGroup(String assignor) {
        String path = Paths.group(group);
        if (zk.exists(path, null) == null) {
            zk.ensurePath(Paths.GROUPS, null);
            List<Op> ops = new ArrayList<>();
            ops.add(Op.Create.persistent(path, new Bodies.Group(clock.instant(), assignor)));
            folders().forEach(f -> ops.add(Op.Create.persistent(f, null)));
            ops.add(Op.Create.persistent(Paths.assignment(group), emptyHead()));
            try {
                zk.multi(ops);
                return;
            } catch (KeeperFailure e) {
                if (e.code() != Code.NODEEXISTS) {
                    throw MemClient.failure("create group " + zk.abs(path), e);
                }
                // created concurrently (or partly by hand): fill in what is missing below
            }
        }
        folders().forEach(f -> zk.ensurePath(f, null));
        zk.ensurePath(Paths.assignment(group), emptyHead());
    }

    private Bodies.AssignmentHead emptyHead() {
        return new Bodies.AssignmentHead(0, Optional.empty(), clock.instant(), 0);
    }

    @Override
    public Registration registerMember(MemberInfo info) {
        Registration registration = createMemberNode(info);
        try {
            info.topics().forEach(this::ensureTopicParents);
        } catch (RuntimeException e) {
            registration.close();
            throw e;
        }
        return registration;
    }

    private Registration createMemberNode(MemberInfo info) {
        String path = Paths.member(group, info.memberId());
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                zk.write(Op.Create.ephemeral(path, new Bodies.Member(info)));
                return () -> deregister(path);
            } catch (KeeperFailure e) {
                if (e.code() != Code.NODEEXISTS) {
                    throw MemClient.failure("register member " + zk.abs(path), e);
                }
                NodeStat stat = zk.exists(path, null);
                if (stat == null) {
                    continue;
                }
                if (zk.isCurrentSession(stat.ephemeralOwner())) {
                    return () -> deregister(path);
                }
                if (zk.isPastSession(stat.ephemeralOwner())) {
                    deleteQuietly(path, stat.version());
                    continue;
                }
                throw new MemberIdInUseException("member id '" + info.memberId() + "' of group '" + group
                        + "' is already registered by another live session (0x"
                        + Long.toHexString(stat.ephemeralOwner()) + ") at " + zk.abs(path)
                        + "; is another process running with the same instance id?");
            }
        }
        throw new StoreException("could not register member node " + zk.abs(path));
    }

    private void deregister(String path) {
        NodeStat stat = zk.exists(path, null);
        if (stat != null && zk.isCurrentSession(stat.ephemeralOwner())) {
            deleteQuietly(path, stat.version());
        }
    }

    private void deleteQuietly(String path, int version) {
        try {
            zk.write(new Op.Delete(path, version));
        } catch (KeeperFailure e) {
            if (e.code() != Code.NONODE && e.code() != Code.BADVERSION) {
                throw MemClient.failure("delete " + zk.abs(path), e);
            }
        }
    }

    @Override
    public boolean isRegistered(String memberId) {
        NodeStat stat = zk.exists(Paths.member(group, memberId), null);
        return stat != null && zk.isCurrentSession(stat.ephemeralOwner());
    }

    @Override
    public MembersSnapshot readMembers(Runnable onChange) {
        return onChange == null ? members.list() : members.read(onChange);
    }

    @Override
    public LeaderElection election(String participantId, LeadershipListener listener) {
        return new MemLeaderElection(this, participantId, listener, clock);
    }

    // ------------------------------------------------------------------ assignment

    @Override
    public AssignmentSnapshot readAssignment() {
        String path = Paths.assignment(group);
        Optional<Ensemble.Read> head = zk.read(path, null);
        if (head.isEmpty()) {
            return AssignmentSnapshot.empty();
        }
        Bodies.AssignmentHead body = Bodies.decode(zk.abs(path), head.get().data(), Bodies.AssignmentHead.class);
        Map<String, SortedSet<TopicPartition>> targets = new TreeMap<>();
        SortedSet<String> statics = new TreeSet<>();
        Map<TopicPartition, String> namedBy = new HashMap<>();
        SortedSet<String> damaged = new TreeSet<>();
        for (String member : zk.children(path, null)) {
            String targetPath = path + "/" + member;
            Optional<Ensemble.Read> t = zk.read(targetPath, null);
            if (t.isEmpty()) {
                continue;
            }
            Bodies.Target target;
            try {
                target = Bodies.decode(zk.abs(targetPath), t.get().data(), Bodies.Target.class);
            } catch (CorruptNodeException e) {
                target = new Bodies.Target(0, new TreeSet<>(), false); // read as empty, marked: the next publish rewrites it
                damaged.add(member);
            }
            SortedSet<TopicPartition> partitions = new TreeSet<>();
            for (TopicPartition tp : target.partitions()) {
                String other = namedBy.putIfAbsent(tp, member);
                if (other == null) {
                    partitions.add(tp);
                } else { // a generation published only in part may name a partition twice: keep one, rewrite both
                    damaged.add(member);
                    damaged.add(other);
                }
            }
            targets.put(member, partitions);
            if (target.isStatic()) {
                statics.add(member);
            }
        }
        return new AssignmentSnapshot(body.generation(), body.leader(), Assignment.of(targets), statics,
                head.get().stat().version(), damaged);
    }

    @Override
    public Optional<TargetAssignment> readTarget(String memberId, Runnable onChange) {
        String path = Paths.target(group, memberId);
        Optional<Ensemble.Read> read = zk.read(path, onChange);
        if (read.isEmpty()) {
            return Optional.empty();
        }
        Bodies.Target body = Bodies.decode(zk.abs(path), read.get().data(), Bodies.Target.class);
        return Optional.of(new TargetAssignment(body.generation(), body.partitions()));
    }

    // ------------------------------------------------------------------ ownership & offsets

    private void ensureTopicParents(String topic) {
        if (ensuredTopics.add(topic)) {
            try {
                zk.ensurePath(Paths.ownersOfTopic(group, topic), null);
                zk.ensurePath(Paths.offsetsOfTopic(group, topic), null);
            } catch (RuntimeException e) {
                ensuredTopics.remove(topic);
                throw e;
            }
        }
    }

    @Override
    public ClaimResult claim(TopicPartition tp, String memberId, long generation, Runnable onChange) {
        ensureTopicParents(tp.topic());
        String offsetPath = Paths.offset(group, tp);
        String ownerPath = Paths.owner(group, tp);
        for (int attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
            // Offset first, then owner: a claim by someone else after the offset read moves its version.
            long session = zk.handleSession();
            Optional<Ensemble.Read> offsetRead = zk.read(offsetPath, null);
            Offset offset;
            try {
                offset = offsetRead.isEmpty() ? Offset.none() : Bodies.offset(zk.abs(offsetPath), offsetRead.get().data());
            } catch (CorruptNodeException e) {
                zk.read(offsetPath, onChange); // wake the member when someone fixes the node
                return new ClaimResult.Blocked(e.getMessage());
            }
            int offsetVersion = offsetRead.map(r -> r.stat().version()).orElse(-1);
            try {
                List<Op> ops = new ArrayList<>();
                ops.add(Op.Create.ephemeral(ownerPath, new Bodies.Owner(memberId, generation, clock.instant())));
                ops.addAll(rewriteOffset(offsetPath, offset, offsetVersion));
                return claimed(tp, offset, zk.multiInSession(session, ops), session);
            } catch (KeeperFailure e) {
                if (e.code() == Code.NONODE) {
                    ensuredTopics.remove(tp.topic()); // a topic folder was deleted under us: make it again
                    ensureTopicParents(tp.topic());
                    continue;
                }
                if (e.failedOp() != 0 || e.code() != Code.NODEEXISTS) {
                    continue; // the offset moved, the session changed, or the answer was lost: read again
                }
            }
            // The owner node exists: read it (after the offset) and decide; the read leaves a watch for its release.
            Optional<Ensemble.Read> ownerRead = zk.readIfPresentWatching(ownerPath, onChange);
            if (ownerRead.isEmpty()) {
                continue; // released meanwhile
            }
            NodeStat ownerStat = ownerRead.get().stat();
            if (ownerStat.ephemeralOwner() == 0) {
                return new ClaimResult.Blocked("owner node " + zk.abs(ownerPath)
                        + " is persistent (created by hand?); delete it to let the group take " + tp);
            }
            String holder = holderOf(ownerPath, ownerRead.get().data());
            try {
                if (memberId.equals(holder) && ownerStat.ephemeralOwner() == session) {
                    // Re-confirming after a reconnect: move the offset version as a fresh claim would.
                    List<Op> ops = new ArrayList<>();
                    ops.add(new Op.Check(ownerPath, ownerStat.version()));
                    ops.addAll(rewriteOffset(offsetPath, offset, offsetVersion));
                    return claimed(tp, offset, zk.multiInSession(session, ops), session);
                }
                if (memberId.equals(holder) && zk.isPastSession(ownerStat.ephemeralOwner())) {
                    // Our own node from an expired session: remove it, conditioned on the offset not having moved.
                    zk.multi(List.of(offsetVersion >= 0 ? new Op.Check(offsetPath, offsetVersion)
                                    : Op.Create.persistent(offsetPath, offset),
                            new Op.Delete(ownerPath, ownerStat.version())));
                    continue;
                }
            } catch (KeeperFailure e) {
                continue; // lost a race with another writer: read again
            }
            return new ClaimResult.Busy(holder);
        }
        throw new StoreException("claim of " + tp + " in group " + group + " kept racing with other writers");
    }

    private String holderOf(String ownerPath, Object data) {
        try {
            return Bodies.decode(zk.abs(ownerPath), data, Bodies.Owner.class).memberId();
        } catch (CorruptNodeException e) {
            return "(unreadable owner node)";
        }
    }

    /**
     * A claim's rewrite of the offset node: a set of the version read; or, without a node, its creation and a set of
     * version 0 right after it, so that the last result always carries the transaction's zxid: the fencing token.
     */
    private static List<Op> rewriteOffset(String path, Offset body, int expectedVersion) {
        if (expectedVersion >= 0) {
            return List.of(new Op.SetData(path, body, expectedVersion));
        }
        return List.of(Op.Create.persistent(path, body), new Op.SetData(path, body, 0));
    }

    private ClaimResult claimed(TopicPartition tp, Offset offset, List<Op.Result> results, long session) {
        histories.put(tp, offset.history());
        NodeStat stat = results.get(results.size() - 1).stat();
        return new ClaimResult.Claimed(new OffsetSnapshot(offset.offset(), offset.metadata(), stat.version(),
                offset.history(), stat.czxid()), new Lease(session, stat.mzxid()));
    }

    @Override
    public CommitOutcome commit(String memberId, long generation, List<CommitRequest> requests) {
        Map<TopicPartition, Long> committed = new HashMap<>();
        Map<TopicPartition, Long> created = new HashMap<>();
        Set<TopicPartition> conflicted = new HashSet<>();
        List<CommitRequest> pending = new ArrayList<>();
        long session = zk.handleSession();
        for (CommitRequest r : requests) {
            if (r.session() == session) {
                pending.add(r);
            } else {
                conflicted.add(r.partition()); // prepared under another session: never sent
            }
        }
        Instant now = clock.instant();
        while (!pending.isEmpty()) {
            List<Op> ops = new ArrayList<>();
            List<Integer> lastOp = new ArrayList<>(); // per pending request: the index of its offset node's set
            Map<TopicPartition, List<CommitSample>> written = new HashMap<>();
            for (CommitRequest r : pending) {
                Offset next = committedBody(memberId, generation, r, now);
                written.put(r.partition(), next.history());
                ops.add(new Op.Check(Paths.owner(group, r.partition()), -1));
                ops.addAll(rewriteOffset(Paths.offset(group, r.partition()), next, (int) r.expectedVersion()));
                lastOp.add(ops.size() - 1);
            }
            try {
                List<Op.Result> results = zk.multiInSession(session, ops);
                for (int i = 0; i < pending.size(); i++) {
                    NodeStat stat = results.get(lastOp.get(i)).stat();
                    TopicPartition tp = pending.get(i).partition();
                    committed.put(tp, (long) stat.version());
                    created.put(tp, stat.czxid());
                    histories.put(tp, written.get(tp));
                }
                pending.clear();
            } catch (KeeperFailure e) {
                if (e.code() == Code.SESSIONEXPIRED) {
                    pending.forEach(r -> conflicted.add(r.partition())); // the session ended: none can land
                    pending.clear();
                } else if (e.failedOp() < 0) {
                    throw MemClient.failure("commit", e);
                } else {
                    CommitRequest bad = pending.remove(requestOf(lastOp, e.failedOp()));
                    conflicted.add(bad.partition());
                }
            }
        }
        return new CommitOutcome(committed, created, conflicted);
    }

    /** The request whose operations include operation {@code op}, given each request's last operation. */
    private static int requestOf(List<Integer> lastOp, int op) {
        for (int i = 0; i < lastOp.size(); i++) {
            if (op <= lastOp.get(i)) {
                return i;
            }
        }
        throw new IllegalArgumentException("operation " + op + " is past the batch's last, " + lastOp);
    }

    private Offset committedBody(String memberId, long generation, CommitRequest r, Instant now) {
        return new Offset(OptionalLong.of(r.offset()), "", Optional.of(memberId), generation, Optional.of(now),
                Bodies.append(histories.getOrDefault(r.partition(), List.of()),
                        new CommitSample(r.offset(), r.logEnd(), now)));
    }

    @Override
    public Set<TopicPartition> releaseAll(String memberId, long generation, List<ReleaseRequest> releases) {
        Set<TopicPartition> released = new HashSet<>();
        Instant now = clock.instant();
        long session = zk.handleSession();
        // Prepared under another session: left to the caller, whose release() refuses them too.
        List<ReleaseRequest> pending = new ArrayList<>(releases.stream().filter(r -> r.session() == session).toList());
        while (!pending.isEmpty()) {
            List<Op> ops = new ArrayList<>();
            for (ReleaseRequest r : pending) {
                Offset body = r.finalCommit().map(c -> committedBody(memberId, generation, c, now)).orElse(null);
                ops.add(fenceOffset(r.partition(), r.expectedVersion(), body));
                ops.add(new Op.Delete(Paths.owner(group, r.partition()), -1));
            }
            try {
                zk.multiInSession(session, ops);
                pending.forEach(r -> {
                    histories.remove(r.partition());
                    released.add(r.partition());
                });
                pending.clear();
            } catch (KeeperFailure e) {
                if (e.code() == Code.SESSIONEXPIRED) {
                    return released; // prepared in another session: none of the rest can land either
                }
                if (e.failedOp() < 0) {
                    // Not sent, or its answer lost: not fenced; the caller tries them again with their final offsets.
                    throw MemClient.failure("release of " + pending.size() + " partitions", e);
                }
                pending.remove(e.failedOp() / 2); // its offset moved or its owner node is gone: the rest again
            }
        }
        return released;
    }

    /**
     * What a release is fenced on: with {@code body} (a final commit) a set of the offset node at {@code
     * expectedVersion}, else a check of it; without an offset node ({@link OffsetSnapshot#ABSENT}) its creation.
     */
    private Op fenceOffset(TopicPartition tp, long expectedVersion, Offset body) {
        String offsetPath = Paths.offset(group, tp);
        if (expectedVersion < 0) {
            return Op.Create.persistent(offsetPath, body != null ? body : Offset.none());
        }
        return body == null ? new Op.Check(offsetPath, (int) expectedVersion)
                : new Op.SetData(offsetPath, body, (int) expectedVersion);
    }

    @Override
    public boolean release(TopicPartition tp, String memberId, long expectedVersion, long session) {
        String ownerPath = Paths.owner(group, tp);
        try {
            zk.multiInSession(session, List.of(fenceOffset(tp, expectedVersion, null), new Op.Delete(ownerPath, -1)));
            return true;
        } catch (KeeperFailure e) {
            // owner node already gone (session ended): nothing left to release; else fenced (or the answer lost)
            return e.failedOp() == 1 && e.code() == Code.NONODE;
        }
    }

    @Override
    public OffsetSnapshot readOffset(TopicPartition tp, Runnable onChange) {
        String path = Paths.offset(group, tp);
        Optional<Ensemble.Read> read = zk.read(path, onChange);
        if (read.isEmpty()) {
            return OffsetSnapshot.absent();
        }
        Offset body = Bodies.offset(zk.abs(path), read.get().data());
        histories.computeIfPresent(tp, (k, v) -> body.history());
        return new OffsetSnapshot(body.offset(), body.metadata(), read.get().stat().version(), body.history(),
                read.get().stat().czxid());
    }

    @Override
    public Optional<OffsetSnapshot> readIfOwned(TopicPartition tp, String memberId, long session) {
        OffsetSnapshot offset = readOffset(tp, null); // offset before owner: see claim()
        return holds(tp, memberId, session) ? Optional.of(offset) : Optional.empty();
    }

    @Override
    public OptionalLong ownedVersion(TopicPartition tp, String memberId, long session) {
        Optional<Ensemble.Read> offset = zk.read(Paths.offset(group, tp), null); // before owner: see claim()
        if (!holds(tp, memberId, session)) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(offset.map(r -> (long) r.stat().version()).orElse(OffsetSnapshot.ABSENT));
    }

    private boolean holds(TopicPartition tp, String memberId, long session) {
        String ownerPath = Paths.owner(group, tp);
        Optional<Ensemble.Read> owner = zk.read(ownerPath, null);
        return owner.isPresent() && session != 0 && session == zk.handleSession()
                && owner.get().stat().ephemeralOwner() == session
                && memberId.equals(holderOf(ownerPath, owner.get().data()));
    }

    @Override
    public Optional<OwnerInfo> readOwner(TopicPartition tp) {
        String path = Paths.owner(group, tp);
        Optional<Ensemble.Read> owner = zk.read(path, null);
        if (owner.isEmpty()) {
            return Optional.empty();
        }
        Bodies.Owner body = Bodies.decode(zk.abs(path), owner.get().data(), Bodies.Owner.class);
        return Optional.of(new OwnerInfo(body.memberId(), body.generation(), body.since(),
                zk.isCurrentSession(owner.get().stat().ephemeralOwner())));
    }
}
