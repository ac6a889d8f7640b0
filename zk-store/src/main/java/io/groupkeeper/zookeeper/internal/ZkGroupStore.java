package io.groupkeeper.zookeeper.internal;

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
import io.groupkeeper.zookeeper.internal.NodeCodec.OffsetBody;
import io.groupkeeper.zookeeper.internal.NodeCodec.OwnerBody;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;

/**
 * The protocol's primitives for one group on ZooKeeper. See {@link GroupStore} for the contract and
 * docs/zk-layout.md for the nodes. The fencing rests on one rule: every change of an owner node (claim,
 * re-confirmation) rewrites the offset node in the same transaction, and every commit and release is conditioned on
 * the offset node's version; so any other writer, be it a new owner, an admin or a hand edit, fences a stale one.
 * Fenced writes go only through the ZooKeeper handle of the claim's session ({@link ZkSession#multiInSession}).
 *
 * <p>About 670 lines: the group's primitives (claim, commit, release, reads) share its session, commit history and
 * caches, and testkit's {@code MemGroupStore} mirrors it method for method; a claim has two paths (one partition, or
 * a batch pipelined, {@link #claimAll}) that build the same transaction. Transactions are packed by {@link
 * TransactionBatcher}, the group's nodes made by {@link GroupNodes} (the same pieces the leader's publish and the admin
 * use), the member node registered by {@link MemberRegistrar}, and the owner's offset watches kept by {@link
 * OffsetWatches}.
 */
public final class ZkGroupStore implements GroupStore {

    private static final int MAX_CLAIM_ATTEMPTS = 8;
    /** Bounds the wait for a background listing; past it the group is checked again synchronously. */
    private static final long LISTING_TIMEOUT_SECONDS = 30;

    private final ZkSession zk;
    private final String group;
    private final Clock clock;
    private final MemberView members;
    private final GroupNodes nodes;
    private final MemberRegistrar memberNodes;
    private final TransactionBatcher batcher = new TransactionBatcher();
    private final OffsetWatches offsetWatches;
    private volatile AssignmentSnapshot cachedAssignment;
    /** Recent commits per partition as last read or written by this store; the owner is the only committer. */
    private final Map<TopicPartition, List<io.groupkeeper.status.CommitSample>> histories = new ConcurrentHashMap<>();

    public ZkGroupStore(ZkSession zk, String group, Clock clock) {
        this.zk = zk;
        this.group = group;
        this.clock = clock;
        this.members = new MemberViewBridge(zk, ZkPaths.members(group), clock);
        this.nodes = new GroupNodes(group);
        this.memberNodes = new MemberRegistrar(zk, group);
        this.offsetWatches = new OffsetWatches(zk);
    }

    @Override
    public String groupId() {
        return group;
    }

    ZkSession session() {
        return zk;
    }

    // ------------------------------------------------------------------ group & members

    @Override
    public void ensureGroup(String assignor) {
        nodes.ensure(zk, assignor, clock.instant());
    }

    /**
     * The group check and the member node's creation in one round trip: the listing goes out first, in the background,
     * and the creation right behind it on the same connection, so ZooKeeper answers both together. Usually the group
     * was complete; otherwise (a new group, a folder deleted by hand) it is completed and the registration repeated,
     * which finds the node already ours if the creation went through.
     */
    @Override
    public Registration join(String assignor, MemberInfo info) {
        CompletableFuture<Boolean> complete = new CompletableFuture<>();
        try {
            zk.requireConnected("list " + zk.abs(ZkPaths.group(group)));
            zk.stats().read();
            zk.client().getChildren().inBackground((client, event) -> complete.complete(
                    event.getResultCode() == KeeperException.Code.OK.intValue() && nodes.isComplete(event.getChildren())))
                    .forPath(ZkPaths.group(group));
        } catch (Exception e) {
            complete.complete(false); // checked again below, synchronously, with a clear error
        }
        Registration registration = null;
        RuntimeException failure = null;
        try {
            registration = memberNodes.create(info);
        } catch (MemberIdInUseException e) {
            throw e;
        } catch (RuntimeException e) {
            failure = e; // NONODE on a new group: resolved below
        }
        if (!groupWasComplete(complete)) {
            ensureGroup(assignor);
            return registerMember(info);
        }
        if (failure != null) {
            throw failure;
        }
        return withTopicParents(registration, info);
    }

    private static boolean groupWasComplete(CompletableFuture<Boolean> complete) {
        try {
            return complete.get(LISTING_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }

    @Override
    public Registration registerMember(MemberInfo info) {
        return withTopicParents(memberNodes.create(info), info);
    }

    private Registration withTopicParents(Registration registration, MemberInfo info) {
        try {
            // The topic folders right after, while the leader already works on the new member: then no claim waits
            // for them, and the membership event is not delayed by them either.
            info.topics().forEach(t -> nodes.ensureTopicFolders(zk, t));
        } catch (RuntimeException e) {
            try {
                registration.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        return registration;
    }

    @Override
    public boolean isRegistered(String memberId) {
        return memberNodes.isRegistered(memberId);
    }

    @Override
    public MembersSnapshot readMembers(Runnable onChange) {
        return onChange == null ? members.list() : members.read(onChange);
    }

    @Override
    public LeaderElection election(String participantId, LeadershipListener listener) {
        return new ZkLeaderElection(this, participantId, listener, clock);
    }

    // ------------------------------------------------------------------ assignment

    @Override
    public AssignmentSnapshot readAssignment() {
        String path = ZkPaths.assignment(group);
        Optional<ZkNode> head = zk.read(path, null);
        if (head.isEmpty()) {
            return AssignmentSnapshot.empty();
        }
        AssignmentSnapshot cached = cachedAssignment;
        int version = head.get().stat().getVersion();
        if (cached != null && cached.version() == version) {
            return cached;
        }
        NodeCodec.AssignmentBody body = NodeCodec.assignment(zk.abs(path), head.get().data());
        Map<String, SortedSet<TopicPartition>> targets = new TreeMap<>();
        SortedSet<String> statics = new TreeSet<>();
        Map<TopicPartition, String> namedBy = new HashMap<>();
        SortedSet<String> damaged = new TreeSet<>();
        for (String member : zk.children(path, null)) {
            String targetPath = path + "/" + member;
            Optional<ZkNode> t = zk.read(targetPath, null);
            if (t.isEmpty()) {
                continue;
            }
            NodeCodec.TargetBody target;
            try {
                target = NodeCodec.target(zk.abs(targetPath), t.get().data());
            } catch (CorruptNodeException e) {
                // Treated as an empty target, and marked: the next publish rewrites it.
                target = new NodeCodec.TargetBody(0, new TreeSet<>(), false);
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
        AssignmentSnapshot snapshot = new AssignmentSnapshot(body.generation(), body.leader(), Assignment.of(targets),
                statics, version, damaged);
        cachedAssignment = snapshot;
        return snapshot;
    }

    /**
     * Called by the election after a successful publish, so the next read can skip re-reading every target; with
     * null after a failed one, whose first transactions may have landed.
     */
    void remember(AssignmentSnapshot snapshot) {
        cachedAssignment = snapshot;
    }

    AssignmentSnapshot cached() {
        return cachedAssignment;
    }

    @Override
    public Optional<TargetAssignment> readTarget(String memberId, Runnable onChange) {
        String path = ZkPaths.target(group, memberId);
        Optional<ZkNode> read = zk.read(path, onChange);
        if (read.isEmpty()) {
            return Optional.empty();
        }
        NodeCodec.TargetBody body = NodeCodec.target(zk.abs(path), read.get().data());
        return Optional.of(new TargetAssignment(body.generation(), body.partitions()));
    }

    // ------------------------------------------------------------------ ownership & offsets

    @Override
    public ClaimResult claim(TopicPartition tp, String memberId, long generation, Runnable onChange) {
        nodes.ensureTopicFolders(zk, tp.topic());
        String offsetPath = ZkPaths.offset(group, tp);
        String ownerPath = ZkPaths.owner(group, tp);
        for (int attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
            // Order matters: offset first, then owner. A claim by someone else after the offset read moves its version,
            // so the transaction below fails instead of acting on a stale view.
            long session = zk.handleSession();
            Optional<ZkNode> offsetRead = zk.read(offsetPath, null);
            OffsetBody offset;
            try {
                offset = offsetRead.isEmpty() ? OffsetBody.none() : NodeCodec.offset(zk.abs(offsetPath), offsetRead.get().data());
            } catch (CorruptNodeException e) {
                zk.read(offsetPath, onChange); // wake the member when someone fixes the node
                return new ClaimResult.Blocked(e.getMessage());
            }
            int offsetVersion = offsetRead.map(r -> r.stat().getVersion()).orElse(-1);
            byte[] offsetBody = NodeCodec.offset(offset);
            try {
                // Fast path, two round trips in all: the partition is free, take it.
                List<CuratorOp> ops = takeOps(ownerPath, memberId, generation, offsetPath, offsetBody, offsetVersion);
                return claimed(tp, offset, zk.multiInSession(session, ops), session);
            } catch (KeeperException e) {
                if (e.code() == KeeperException.Code.NONODE) {
                    // A topic folder was deleted under us (an admin deleted the topic's offsets): make it again.
                    nodes.forgetTopicFolders(tp.topic());
                    nodes.ensureTopicFolders(zk, tp.topic());
                    continue;
                }
                if (e.code() == KeeperException.Code.SESSIONEXPIRED) {
                    continue; // the session changed between reading it and sending: again, in the new one
                }
                if (ZkSession.failedOp(e) != 0 || e.code() != KeeperException.Code.NODEEXISTS) {
                    continue; // the offset node moved (a commit, an edit) since we read it: read again
                }
            } catch (StoreException e) {
                throw e;
            } catch (Exception e) {
                throw ZkSession.failure("claim " + zk.abs(ownerPath), e);
            }
            // The owner node exists. Read it (after the offset: see above) and decide; the read leaves a watch, which
            // fires when the holder releases it (a spurious wake-up in the other cases costs one lane check).
            Optional<ZkNode> ownerRead = zk.readIfPresentWatching(ownerPath, onChange);
            if (ownerRead.isEmpty()) {
                continue; // released meanwhile
            }
            try {
                Stat ownerStat = ownerRead.get().stat();
                if (ownerStat.getEphemeralOwner() == 0) {
                    return new ClaimResult.Blocked("owner node " + zk.abs(ownerPath)
                            + " is persistent (created by hand?); delete it to let the group take " + tp);
                }
                String holder = holderOf(ownerPath, ownerRead.get().data());
                if (memberId.equals(holder) && ownerStat.getEphemeralOwner() == session) {
                    // Re-confirming after a reconnect: move the offset version as a fresh claim would.
                    List<CuratorOp> ops = new ArrayList<>();
                    ops.add(zk.client().transactionOp().check().withVersion(ownerStat.getVersion()).forPath(ownerPath));
                    ops.addAll(rewriteOffset(offsetPath, offsetBody, offsetVersion));
                    return claimed(tp, offset, zk.multiInSession(session, ops), session);
                }
                if (memberId.equals(holder) && zk.isPastSession(ownerStat.getEphemeralOwner())) {
                    // Our own node from an expired session: remove it, conditioned on the offset not having moved.
                    zk.multi(List.of(offsetVersion >= 0
                                    ? zk.client().transactionOp().check().withVersion(offsetVersion).forPath(offsetPath)
                                    : zk.client().transactionOp().create().withMode(CreateMode.PERSISTENT)
                                            .forPath(offsetPath, offsetBody),
                            zk.client().transactionOp().delete().withVersion(ownerStat.getVersion()).forPath(ownerPath)));
                    continue;
                }
                return new ClaimResult.Busy(holder);
            } catch (KeeperException e) {
                continue; // lost a race with another writer: read again
            } catch (StoreException e) {
                throw e;
            } catch (Exception e) {
                throw ZkSession.failure("claim " + zk.abs(ownerPath), e);
            }
        }
        throw new StoreException("claim of " + tp + " in group " + group + " kept racing with other writers");
    }

    /**
     * The claims sent together: every partition's offset read goes out at once, and its claim transaction (the same
     * one {@link #claim} sends) from ZooKeeper's event thread the moment that read returns, through the same session's
     * handle; a claim that finds the owner node taken reads it, arming the hook, as {@link #claim} does. So k claims
     * cost about the two round trips of one, and no thread but ZooKeeper's own waits for them. A claim this cannot
     * settle (its offset moved, a folder or the session changed, a corrupt node, the member's own owner node, a
     * failure) is made again by {@link #claim} on the calling thread.
     */
    @Override
    public Map<TopicPartition, CompletableFuture<ClaimResult>> claimAll(List<TopicPartition> partitions,
                                                                        String memberId, long generation,
                                                                        Runnable onChange) {
        Map<TopicPartition, CompletableFuture<Optional<ClaimResult>>> sent = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            sent.put(tp, pipelinedClaim(tp, memberId, generation, onChange));
        }
        Map<TopicPartition, CompletableFuture<ClaimResult>> results = new LinkedHashMap<>();
        sent.forEach((tp, claim) -> {
            Optional<ClaimResult> settled = claim.join(); // never exceptional: see pipelinedClaim
            try {
                results.put(tp, CompletableFuture.completedFuture(settled.isPresent() ? settled.get()
                        : claim(tp, memberId, generation, onChange)));
            } catch (RuntimeException e) {
                results.put(tp, CompletableFuture.failedFuture(e));
            }
        });
        return results;
    }

    /** One claim of {@link #claimAll}: its outcome, or empty for {@link #claim} to settle it. */
    private CompletableFuture<Optional<ClaimResult>> pipelinedClaim(TopicPartition tp, String memberId,
                                                                   long generation, Runnable onChange) {
        String offsetPath = ZkPaths.offset(group, tp);
        String ownerPath = ZkPaths.owner(group, tp);
        try {
            nodes.ensureTopicFolders(zk, tp.topic());
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        long session = zk.handleSession();
        // Offset first, then owner, as in claim().
        return zk.readAsync(offsetPath, null).thenCompose(read -> {
            try {
                OffsetBody offset = read.isEmpty() ? OffsetBody.none() : NodeCodec.offset(zk.abs(offsetPath),
                        read.get().data());
                List<CuratorOp> ops = takeOps(ownerPath, memberId, generation, offsetPath, NodeCodec.offset(offset),
                        read.map(r -> r.stat().getVersion()).orElse(-1));
                return zk.multiInSessionAsync(session, ops).thenCompose(tx -> {
                    if (tx.ok()) {
                        return CompletableFuture.completedFuture(Optional.of(claimed(tp, offset, tx.results(),
                                session)));
                    }
                    if (tx.code() == KeeperException.Code.NODEEXISTS && tx.failedOp() == 0) {
                        return zk.readAsync(ownerPath, onChange).thenApply(owner -> heldByAnother(owner, ownerPath,
                                memberId));
                    }
                    return CompletableFuture.completedFuture(Optional.<ClaimResult>empty());
                });
            } catch (Exception e) { // a corrupt offset node, or an operation that could not be built
                return CompletableFuture.completedFuture(Optional.<ClaimResult>empty());
            }
        }).exceptionally(e -> Optional.empty());
    }

    /** Busy when another member's live owner node holds the partition; empty for {@link #claim} otherwise. */
    private Optional<ClaimResult> heldByAnother(Optional<ZkNode> owner, String ownerPath, String memberId) {
        if (owner.isEmpty() || owner.get().stat().getEphemeralOwner() == 0) {
            return Optional.empty(); // released meanwhile, or a persistent node: claim() takes it or says so
        }
        String holder = holderOf(ownerPath, owner.get().data());
        return memberId.equals(holder) ? Optional.empty() : Optional.of(new ClaimResult.Busy(holder));
    }

    private String holderOf(String ownerPath, byte[] data) {
        try {
            return NodeCodec.owner(zk.abs(ownerPath), data).memberId();
        } catch (CorruptNodeException e) {
            return "(unreadable owner node)";
        }
    }

    /** A free partition's claim: its owner node, created ephemeral, and the rewrite of its offset node. */
    private List<CuratorOp> takeOps(String ownerPath, String memberId, long generation, String offsetPath,
                                    byte[] offsetBody, int offsetVersion) throws Exception {
        byte[] ownerBody = NodeCodec.owner(new OwnerBody(memberId, generation, clock.instant()));
        List<CuratorOp> ops = new ArrayList<>();
        ops.add(zk.client().transactionOp().create().withMode(CreateMode.EPHEMERAL).forPath(ownerPath, ownerBody));
        ops.addAll(rewriteOffset(offsetPath, offsetBody, offsetVersion));
        return ops;
    }

    /**
     * A claim's or commit's rewrite of the offset node: a set of the version read; or, without a node, its creation
     * and a set of version 0 right after it, so that the result always carries a stat (a creation's does not): the
     * transaction's zxid (a claim's fencing token) and the node's incarnation (czxid).
     */
    private List<CuratorOp> rewriteOffset(String path, byte[] body, int expectedVersion) throws Exception {
        if (expectedVersion >= 0) {
            return List.of(zk.client().transactionOp().setData().withVersion(expectedVersion).forPath(path, body));
        }
        return List.of(zk.client().transactionOp().create().withMode(CreateMode.PERSISTENT).forPath(path, body),
                zk.client().transactionOp().setData().withVersion(0).forPath(path, body));
    }

    private ClaimResult claimed(TopicPartition tp, OffsetBody offset, List<OpResult> results, long session) {
        histories.put(tp, offset.history());
        OpResult last = results.get(results.size() - 1);
        if (!(last instanceof OpResult.SetDataResult set)) {
            throw new IllegalStateException("claim transaction of " + tp + " ended with " + last);
        }
        Stat stat = set.getStat();
        return new ClaimResult.Claimed(new OffsetSnapshot(offset.offset(), offset.metadata(), stat.getVersion(),
                offset.history(), stat.getCzxid()), new Lease(session, stat.getMzxid()));
    }

    @Override
    public CommitOutcome commit(String memberId, long generation, List<CommitRequest> requests) {
        Map<TopicPartition, Long> committed = new HashMap<>();
        Map<TopicPartition, Long> created = new HashMap<>();
        Set<TopicPartition> conflicted = new java.util.HashSet<>();
        List<CommitRequest> pending = new ArrayList<>();
        long session = zk.handleSession();
        for (CommitRequest r : requests) {
            if (r.session() == session) {
                pending.add(r);
            } else {
                conflicted.add(r.partition()); // prepared under another session: never sent (see multiInSession)
            }
        }
        java.time.Instant now = clock.instant();
        Map<TopicPartition, List<io.groupkeeper.status.CommitSample>> written = new HashMap<>();
        while (!pending.isEmpty()) {
            TransactionBatcher.Batch<CommitRequest> batch;
            try {
                batch = batcher.next(pending, 0, r -> {
                    OffsetBody next = committedBody(memberId, generation, r, now);
                    written.put(r.partition(), next.history());
                    List<CuratorOp> ops = new ArrayList<>();
                    ops.add(zk.client().transactionOp().check().forPath(ZkPaths.owner(group, r.partition())));
                    ops.addAll(rewriteOffset(ZkPaths.offset(group, r.partition()), NodeCodec.offset(next),
                            (int) r.expectedVersion()));
                    return ops;
                });
            } catch (Exception e) {
                throw ZkSession.failure("prepare commit", e);
            }
            List<CommitRequest> sent = batch.requests();
            Map<TopicPartition, Long> writtenBy = new HashMap<>();
            sent.forEach(r -> offsetWatches.committing(ZkPaths.offset(group, r.partition())));
            try {
                List<OpResult> results = zk.multiInSession(session, batch.ops());
                for (int i = 0; i < sent.size(); i++) {
                    TopicPartition tp = sent.get(i).partition();
                    OpResult last = results.get(batch.lastOp(i));
                    if (!(last instanceof OpResult.SetDataResult set)) {
                        throw new IllegalStateException("commit transaction of " + tp + " ended with " + last);
                    }
                    committed.put(tp, (long) set.getStat().getVersion());
                    created.put(tp, set.getStat().getCzxid());
                    writtenBy.put(tp, set.getStat().getMzxid());
                    histories.put(tp, written.get(tp));
                }
                pending.removeAll(sent);
            } catch (KeeperException.SessionExpiredException e) {
                pending.forEach(r -> conflicted.add(r.partition())); // the session ended: none of them can land
                pending.clear();
            } catch (KeeperException e) {
                int failed = ZkSession.failedOp(e);
                if (failed < 0) {
                    throw ZkSession.failure("commit", e);
                }
                CommitRequest bad = batch.requestOf(failed);
                conflicted.add(bad.partition());
                pending.remove(bad);
            } finally {
                sent.forEach(r -> offsetWatches.committed(ZkPaths.offset(group, r.partition()),
                        writtenBy.getOrDefault(r.partition(), 0L)));
            }
        }
        return new CommitOutcome(committed, created, conflicted);
    }

    /** The offset node's body after {@code r}: the offset, who wrote it and when, and the recent-commit history. */
    private OffsetBody committedBody(String memberId, long generation, CommitRequest r, java.time.Instant now) {
        return new OffsetBody(java.util.OptionalLong.of(r.offset()), "", Optional.of(memberId), generation,
                Optional.of(now), NodeCodec.append(histories.getOrDefault(r.partition(), List.of()),
                        new io.groupkeeper.status.CommitSample(r.offset(), r.logEnd(), now)));
    }

    @Override
    public Set<TopicPartition> releaseAll(String memberId, long generation, List<ReleaseRequest> releases) {
        Set<TopicPartition> released = new java.util.HashSet<>();
        java.time.Instant now = clock.instant();
        long session = zk.handleSession();
        // Prepared under another session: left to the caller, whose release() refuses them too.
        List<ReleaseRequest> pending = new ArrayList<>(releases.stream().filter(r -> r.session() == session).toList());
        while (!pending.isEmpty()) {
            TransactionBatcher.Batch<ReleaseRequest> batch;
            try {
                batch = batcher.next(pending, 0, r -> {
                    byte[] body = r.finalCommit().map(c -> NodeCodec.offset(committedBody(memberId, generation, c, now)))
                            .orElse(null);
                    return List.of(fenceOffset(r.partition(), r.expectedVersion(), body),
                            zk.client().transactionOp().delete().forPath(ZkPaths.owner(group, r.partition())));
                });
            } catch (Exception e) {
                throw ZkSession.failure("prepare release", e);
            }
            List<ReleaseRequest> sent = batch.requests();
            try {
                zk.multiInSession(session, batch.ops());
                sent.forEach(r -> {
                    histories.remove(r.partition());
                    released.add(r.partition());
                });
                pending.removeAll(sent);
            } catch (KeeperException e) {
                int failed = ZkSession.failedOp(e);
                if (e.code() == KeeperException.Code.SESSIONEXPIRED) {
                    return released; // prepared in another session: none of the rest can land either
                }
                if (failed < 0) {
                    // Not sent, or its answer lost: the caller must not take the rest as fenced (and drop their final
                    // offsets); it tries them again.
                    throw ZkSession.failure("release of " + sent.size() + " partitions", e);
                }
                // That one's offset moved (an edit) or its owner node is gone: left to the caller; the rest again.
                pending.remove(batch.requestOf(failed));
            } catch (StoreException e) {
                throw e;
            } catch (Exception e) {
                throw ZkSession.failure("release of " + sent.size() + " partitions", e);
            }
        }
        return released;
    }

    /**
     * The operation a release is fenced on: with {@code body} (a final commit) a set of the offset node at {@code
     * expectedVersion}, else a check of it. Without an offset node ({@link OffsetSnapshot#ABSENT}) it is created, with
     * the final commit or with no offset: the creation fails if anyone else created the node meanwhile.
     */
    private CuratorOp fenceOffset(TopicPartition tp, long expectedVersion, byte[] body) throws Exception {
        String offsetPath = ZkPaths.offset(group, tp);
        if (expectedVersion < 0) {
            return zk.client().transactionOp().create().withMode(CreateMode.PERSISTENT).forPath(offsetPath,
                    body != null ? body : NodeCodec.offset(OffsetBody.none()));
        }
        return body == null
                ? zk.client().transactionOp().check().withVersion((int) expectedVersion).forPath(offsetPath)
                : zk.client().transactionOp().setData().withVersion((int) expectedVersion).forPath(offsetPath, body);
    }

    @Override
    public boolean release(TopicPartition tp, String memberId, long expectedVersion, long session) {
        String ownerPath = ZkPaths.owner(group, tp);
        try {
            zk.multiInSession(session, List.of(fenceOffset(tp, expectedVersion, null),
                    zk.client().transactionOp().delete().forPath(ownerPath)));
            return true;
        } catch (KeeperException e) {
            int failed = ZkSession.failedOp(e);
            if (failed == 1 && e.code() == KeeperException.Code.NONODE) {
                return true; // owner node already gone (session ended): nothing left to release
            }
            return false;
        } catch (StoreException e) {
            throw e;
        } catch (Exception e) {
            throw ZkSession.failure("release " + ownerPath, e);
        }
    }

    @Override
    public OffsetSnapshot readOffset(TopicPartition tp, Runnable onChange) {
        String path = ZkPaths.offset(group, tp);
        // The watch before the read, so no change falls in between; a one-shot one if the server has no persistent ones.
        boolean armed = onChange != null && offsetWatches.arm(path, onChange);
        Optional<ZkNode> read = zk.read(path, armed ? null : onChange);
        if (read.isEmpty()) {
            return OffsetSnapshot.absent();
        }
        OffsetBody body = NodeCodec.offset(zk.abs(path), read.get().data());
        histories.computeIfPresent(tp, (k, v) -> body.history());
        return new OffsetSnapshot(body.offset(), body.metadata(), read.get().stat().getVersion(), body.history(),
                read.get().stat().getCzxid());
    }

    @Override
    public Optional<OffsetSnapshot> readIfOwned(TopicPartition tp, String memberId, long session) {
        OffsetSnapshot offset = readOffset(tp, null); // offset before owner: see claim()
        return holds(tp, memberId, session) ? Optional.of(offset) : Optional.empty();
    }

    @Override
    public java.util.OptionalLong ownedVersion(TopicPartition tp, String memberId, long session) {
        Optional<ZkNode> offset = zk.read(ZkPaths.offset(group, tp), null); // before owner: see claim()
        if (!holds(tp, memberId, session)) {
            return java.util.OptionalLong.empty();
        }
        return java.util.OptionalLong.of(offset.map(r -> (long) r.stat().getVersion()).orElse(OffsetSnapshot.ABSENT));
    }

    /** Whether {@code memberId}'s owner node of {@code tp} exists in {@code session}, the current one. */
    private boolean holds(TopicPartition tp, String memberId, long session) {
        String ownerPath = ZkPaths.owner(group, tp);
        Optional<ZkNode> owner = zk.read(ownerPath, null);
        return owner.isPresent() && session != 0 && session == zk.handleSession()
                && owner.get().stat().getEphemeralOwner() == session
                && memberId.equals(holderOf(ownerPath, owner.get().data()));
    }

    @Override
    public Optional<OwnerInfo> readOwner(TopicPartition tp) {
        String path = ZkPaths.owner(group, tp);
        Optional<ZkNode> owner = zk.read(path, null);
        if (owner.isEmpty()) {
            return Optional.empty();
        }
        OwnerBody body = NodeCodec.owner(zk.abs(path), owner.get().data());
        return Optional.of(new OwnerInfo(body.memberId(), body.generation(), body.since(),
                zk.isCurrentSession(owner.get().stat().getEphemeralOwner())));
    }
}
