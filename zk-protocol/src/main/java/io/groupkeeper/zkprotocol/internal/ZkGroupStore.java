package io.groupkeeper.zkprotocol.internal;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.assignor.Assignment;
import io.groupkeeper.spi.CorruptNodeException;
import io.groupkeeper.spi.MemberIdInUseException;
import io.groupkeeper.spi.StoreException;
import io.groupkeeper.spi.internal.AssignmentSnapshot;
import io.groupkeeper.spi.internal.ClaimResult;
import io.groupkeeper.spi.internal.CommitOutcome;
import io.groupkeeper.spi.internal.CommitRequest;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.LeaderElection;
import io.groupkeeper.spi.internal.LeadershipListener;
import io.groupkeeper.spi.internal.Lease;
import io.groupkeeper.spi.internal.MemberInfo;
import io.groupkeeper.spi.internal.MembersSnapshot;
import io.groupkeeper.spi.internal.OffsetSnapshot;
import io.groupkeeper.spi.internal.OwnerInfo;
import io.groupkeeper.spi.internal.Registration;
import io.groupkeeper.spi.internal.ReleaseRequest;
import io.groupkeeper.spi.internal.TargetAssignment;
import io.groupkeeper.status.CommitSample;
import io.groupkeeper.zkprotocol.ZkCode;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkNode;
import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.ZkPort;
import io.groupkeeper.zkprotocol.ZkResult;
import io.groupkeeper.zkprotocol.ZkStat;
import io.groupkeeper.zkprotocol.internal.NodeCodec.OffsetBody;
import io.groupkeeper.zkprotocol.internal.NodeCodec.OwnerBody;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The protocol's primitives for one group on ZooKeeper. See {@link GroupStore} for the contract and
 * docs/zk-layout.md for the nodes. The fencing rests on one rule: every change of an owner node (claim,
 * re-confirmation) moves the partition's fence node ({@code fences/<topic>/<partition>}) in the same transaction, and
 * every commit and release is conditioned on the fence node's version and the offset node's; so any other writer, be it
 * a new owner (the fence), an admin or a hand edit (the offset), fences a stale one. The SPI sees both versions as one
 * ({@link #version}). The claim does not need the offset node first, so its read goes out right behind it: one round
 * trip.
 * Fenced writes go only through the ZooKeeper handle of the claim's session ({@link ZkPort#multiInSession}).
 *
 * <p>About 950 lines, one class on purpose: the group's fenced primitives (claim, commit, release, reads) share one
 * session, one version scheme (fence and offset as one) and one cache of the assignment, and each is proven against the
 * others by the contract suite and the simulator; a claim has two paths (one partition, or a batch pipelined, {@link
 * #claimAll}) that build the same transaction. It runs on any {@link ZkPort} (Curator in zk-store, the model in
 * testkit). What stands alone is elsewhere: transactions packed by {@link TransactionBatcher}, the group's nodes made by
 * {@link GroupNodes} (the same pieces the leader's publish and the admin use), the member node registered by {@link
 * MemberRegistrar}, the owner's offset watches kept by {@link OffsetWatches}, claims whose answer was lost by {@link
 * ClaimsInDoubt}, and the commit history the lag status reads by {@link CommitHistory}.
 */
public final class ZkGroupStore implements GroupStore {

    private static final Logger LOG = LoggerFactory.getLogger(ZkGroupStore.class);

    private static final int MAX_CLAIM_ATTEMPTS = 8;
    /** Bounds the wait for a background listing; past it the group is checked again synchronously. */
    private static final long LISTING_TIMEOUT_SECONDS = 30;

    private final ZkPort zk;
    private final String group;
    private final Clock clock;
    private final MemberView members;
    private final GroupNodes nodes;
    private final MemberRegistrar memberNodes;
    private final TransactionBatcher batcher;
    private final OffsetWatches offsetWatches;
    private volatile AssignmentSnapshot cachedAssignment;
    private final CommitHistory histories = new CommitHistory();
    private final ClaimsInDoubt claimsInDoubt;

    public ZkGroupStore(ZkPort zk, String group, Clock clock) {
        this.zk = zk;
        this.group = group;
        this.clock = clock;
        this.members = new MemberViewBridge(zk, ZkPaths.members(group), clock);
        this.nodes = new GroupNodes(group);
        this.memberNodes = new MemberRegistrar(zk, group);
        this.offsetWatches = new OffsetWatches(zk);
        this.claimsInDoubt = new ClaimsInDoubt(zk, group);
        this.batcher = new TransactionBatcher(zk.transactionLimit(), zk::sizeOf);
    }

    @Override
    public String groupId() {
        return group;
    }

    ZkPort session() {
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
        CompletableFuture<Boolean> complete;
        try {
            complete = zk.childrenAsync(ZkPaths.group(group))
                    .handle((children, failed) -> failed == null && nodes.isComplete(children));
        } catch (RuntimeException e) {
            complete =
                    CompletableFuture.completedFuture(false); // checked again below, synchronously, with a clear error
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
            if (isNoNode(failure)) { // the group was removed since the listing (its last member left it unused)
                ensureGroup(assignor);
                return registerMember(info);
            }
            throw failure;
        }
        return withTopicParents(registration, info);
    }

    private static boolean isNoNode(RuntimeException e) {
        return e.getCause() instanceof ZkFailure f && f.code() == ZkCode.NONODE;
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
        Registration registration;
        try {
            registration = memberNodes.create(info);
        } catch (MemberIdInUseException e) {
            throw e;
        } catch (RuntimeException e) {
            if (!isNoNode(e)) {
                throw e;
            }
            ensureGroup(info.assignor()); // removed while unused (see removeIfUnused): made again
            registration = memberNodes.create(info);
        }
        return withTopicParents(registration, info);
    }

    /** After a member left: the group goes if nothing in it is worth keeping ({@link GroupNodes#removeIfUnused}). */
    private void removeIfUnused() {
        try {
            if (nodes.removeIfUnused(zk)) {
                LOG.info("group {} removed: no member left, and nothing was ever claimed or committed in it", group);
            }
        } catch (RuntimeException e) {
            LOG.debug("could not check whether group {} is unused: {}", group, e.toString());
        }
    }

    private Registration withTopicParents(Registration created, MemberInfo info) {
        Registration registration = () -> {
            created.close();
            removeIfUnused();
        };
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
    public void deregisterMember(String memberId) {
        memberNodes.deregister(memberId);
        removeIfUnused();
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
        int version = head.get().stat().version();
        if (cached != null && cached.version() == version) {
            return cached;
        }
        NodeCodec.AssignmentBody body =
                NodeCodec.assignment(zk.abs(path), head.get().data());
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
        AssignmentSnapshot snapshot = new AssignmentSnapshot(
                body.generation(), body.leader(), Assignment.of(targets), statics, version, damaged);
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
        String fencePath = ZkPaths.fence(group, tp);
        for (int attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
            // The slow path reads the offset node first, so that a corrupt one blocks the claim before it is made and a
            // claim conditioned on its version cannot act on a stale view of it.
            long session = zk.handleSession();
            Optional<ZkNode> offsetRead = zk.read(offsetPath, null);
            OffsetBody offset;
            try {
                offset = offsetRead.isEmpty()
                        ? OffsetBody.none()
                        : NodeCodec.offset(zk.abs(offsetPath), offsetRead.get().data());
            } catch (CorruptNodeException e) {
                // A pipelined claim may have landed before its read saw this. If its answer was lost, the client may
                // read from a server that has not applied it yet: sync first, or the undo misses the owner node and
                // leaves it blocking the next owner (found by the simulator with claims landing late, seed 931).
                claimsInDoubt.syncIfInDoubt(tp, session, doubt -> undoOwnClaim(tp, memberId, doubt));
                undoOwnClaim(tp, memberId, session);
                // Wake the member when someone fixes the node. A fix that landed since the first read fires no watch:
                // this read sees it, and the claim is tried again instead of waiting for a change already made.
                Optional<ZkNode> watched = zk.read(offsetPath, onChange);
                if (watched.isEmpty() || readable(offsetPath, watched.get())) {
                    continue;
                }
                return new ClaimResult.Blocked(e.getMessage());
            }
            int offsetVersion = offsetRead.map(r -> r.stat().version()).orElse(-1);
            byte[] claimBody = NodeCodec.owner(new OwnerBody(memberId, generation, clock.instant()));
            try {
                List<ZkOp> ops = new ArrayList<>();
                ops.add(ZkOp.createEphemeral(ownerPath, claimBody));
                ops.add(ZkOp.set(fencePath, claimBody, -1));
                ops.addAll(offsetCondition(offsetPath, offsetVersion));
                return claimed(tp, offset, offsetRead, zk.multiInSession(session, ops), session);
            } catch (ZkFailure e) {
                if (e.code() == ZkCode.NONODE) {
                    // A folder deleted under us (an admin deleted the topic's offsets), or the partition's first claim
                    // ever (no fence node yet): make them.
                    ensureFence(tp);
                    continue;
                }
                if (e.code() == ZkCode.SESSIONEXPIRED) {
                    continue; // the session changed between reading it and sending: again, in the new one
                }
                claimsInDoubt.noteIfLost(tp, session, e.code());
                if (e.failedOp() != 0 || e.code() != ZkCode.NODEEXISTS) {
                    continue; // the offset node moved (an edit) since we read it: read again
                }
            } catch (StoreException e) {
                throw e;
            } catch (Exception e) {
                throw ZkFailure.toStore("claim " + zk.abs(ownerPath), e);
            }
            // The owner node exists. Read it and decide; the read leaves a watch, which fires when the holder releases
            // it (a spurious wake-up in the other cases costs one lane check).
            Optional<ZkNode> ownerRead = zk.readIfPresentWatching(ownerPath, onChange);
            if (ownerRead.isEmpty()) {
                continue; // released meanwhile
            }
            try {
                ZkStat ownerStat = ownerRead.get().stat();
                if (ownerStat.ephemeralOwner() == 0) {
                    return new ClaimResult.Blocked("owner node " + zk.abs(ownerPath)
                            + " is persistent (created by hand?); delete it to let the group take " + tp);
                }
                String holder = holderOf(ownerPath, ownerRead.get().data());
                if (memberId.equals(holder) && ownerStat.ephemeralOwner() == session) {
                    // Re-confirming after a reconnect: move the fence as a fresh claim would.
                    List<ZkOp> ops = new ArrayList<>();
                    ops.add(ZkOp.check(ownerPath, ownerStat.version()));
                    ops.add(ZkOp.set(fencePath, claimBody, -1));
                    ops.addAll(offsetCondition(offsetPath, offsetVersion));
                    return claimed(tp, offset, offsetRead, zk.multiInSession(session, ops), session);
                }
                if (memberId.equals(holder) && zk.isPastSession(ownerStat.ephemeralOwner())) {
                    // Our own node from an expired session: remove it, conditioned on the offset not having moved.
                    zk.multi(List.of(
                            offsetVersion >= 0
                                    ? ZkOp.check(offsetPath, offsetVersion)
                                    : ZkOp.create(offsetPath, NodeCodec.offset(offset)),
                            ZkOp.delete(ownerPath, ownerStat.version())));
                    continue;
                }
                return new ClaimResult.Busy(holder);
            } catch (ZkFailure e) {
                if (e.code() == ZkCode.NONODE && e.failedOp() == 1) {
                    ensureFence(tp); // re-confirming a partition whose fence node was deleted by hand
                }
                continue; // lost a race with another writer: read again
            } catch (StoreException e) {
                throw e;
            } catch (Exception e) {
                throw ZkFailure.toStore("claim " + zk.abs(ownerPath), e);
            }
        }
        throw new StoreException("claim of " + tp + " in group " + group + " kept racing with other writers");
    }

    /**
     * The slow path's condition on the offset node it read: a check of its version; or, without a node, its creation
     * (empty) and a set of version 0, as a commit's, so that every claimed partition has an offset node an operator can
     * {@code set} and the result carries its stat.
     */
    private List<ZkOp> offsetCondition(String offsetPath, int offsetVersion) throws Exception {
        if (offsetVersion >= 0) {
            return List.of(ZkOp.check(offsetPath, offsetVersion));
        }
        byte[] none = NodeCodec.offset(OffsetBody.none());
        return List.of(ZkOp.create(offsetPath, none), ZkOp.set(offsetPath, none, 0));
    }

    /** The topic's folders and the partition's fence node, made if missing (the fence at version 0, with no body). */
    private void ensureFence(TopicPartition tp) {
        nodes.forgetTopicFolders(tp.topic());
        nodes.ensureTopicFolders(zk, tp.topic());
        try {
            zk.write(ZkOp.create(ZkPaths.fence(group, tp), new byte[0]));
        } catch (ZkFailure e) {
            if (e.code() != ZkCode.NODEEXISTS) {
                throw ZkFailure.toStore("create fence " + zk.abs(ZkPaths.fence(group, tp)), e);
            }
        }
    }

    /**
     * Deletes this member's owner node of {@code tp} if it holds it in {@code session}: a pipelined claim landed and
     * its read then found the offset node corrupt, or a claim whose answer was lost landed in a session the member does
     * not count (see {@link ClaimsInDoubt}). Fenced on the fence node's version: every claim that succeeds, a
     * re-confirmation included, moves the fence, so a later claim's node is never removed, whichever lands first (a
     * claim that finds its node gone creates it again).
     */
    private void undoOwnClaim(TopicPartition tp, String memberId, long session) {
        String ownerPath = ZkPaths.owner(group, tp);
        Optional<ZkNode> fence = zk.read(ZkPaths.fence(group, tp), null);
        Optional<ZkNode> owner = zk.read(ownerPath, null);
        if (fence.isEmpty()
                || owner.isEmpty()
                || session == 0
                || owner.get().stat().ephemeralOwner() != session
                || !memberId.equals(holderOf(ownerPath, owner.get().data()))) {
            return;
        }
        try {
            zk.multiInSession(
                    session,
                    List.of(
                            ZkOp.check(
                                    ZkPaths.fence(group, tp), fence.get().stat().version()),
                            ZkOp.delete(ownerPath, owner.get().stat().version())));
        } catch (ZkFailure e) {
            // NONODE: gone already; BADVERSION: a later claim moved the fence, the node is its; SESSIONEXPIRED: gone.
            if (e.code() != ZkCode.NONODE && e.code() != ZkCode.BADVERSION && e.code() != ZkCode.SESSIONEXPIRED) {
                throw ZkFailure.toStore("undo the claim of " + zk.abs(ownerPath), e);
            }
        }
    }

    /**
     * The claims sent together, each in one round trip: every claim transaction ({@code create owner + setData fence})
     * goes out at once, each with the read of its offset node right behind it on the same connection, which ZooKeeper
     * answers after the transaction; so the read sees the node as the new owner starts from, and any earlier holder's
     * write is fenced by the fence node's new version. A claim that finds the owner node taken reads it, arming the
     * hook, as {@link #claim} does. So k claims cost about one round trip, and no thread but ZooKeeper's own waits for
     * them. A claim this cannot settle (a folder or fence node missing, the session changed, a corrupt offset node, the
     * member's own owner node, a failure) is made again by {@link #claim} on the calling thread.
     */
    @Override
    public Map<TopicPartition, CompletableFuture<ClaimResult>> claimAll(
            List<TopicPartition> partitions, String memberId, long generation, Runnable onChange) {
        Map<TopicPartition, CompletableFuture<Optional<ClaimResult>>> sent = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            sent.put(tp, pipelinedClaim(tp, memberId, generation, onChange));
        }
        Map<TopicPartition, CompletableFuture<ClaimResult>> results = new LinkedHashMap<>();
        sent.forEach((tp, claim) -> {
            Optional<ClaimResult> settled = claim.join(); // never exceptional: see pipelinedClaim
            try {
                results.put(
                        tp,
                        CompletableFuture.completedFuture(
                                settled.isPresent() ? settled.get() : claim(tp, memberId, generation, onChange)));
            } catch (RuntimeException e) {
                results.put(tp, CompletableFuture.failedFuture(e));
            }
        });
        return results;
    }

    private boolean readable(String offsetPath, ZkNode node) {
        try {
            NodeCodec.offset(zk.abs(offsetPath), node.data());
            return true;
        } catch (CorruptNodeException e) {
            return false;
        }
    }

    /** One claim of {@link #claimAll}: its outcome, or empty for {@link #claim} to settle it. */
    private CompletableFuture<Optional<ClaimResult>> pipelinedClaim(
            TopicPartition tp, String memberId, long generation, Runnable onChange) {
        String ownerPath = ZkPaths.owner(group, tp);
        String fencePath = ZkPaths.fence(group, tp);
        try {
            nodes.ensureTopicFolders(zk, tp.topic());
            long session = zk.handleSession();
            byte[] claimBody = NodeCodec.owner(new OwnerBody(memberId, generation, clock.instant()));
            return sendClaim(
                            tp,
                            session,
                            List.of(ZkOp.createEphemeral(ownerPath, claimBody), ZkOp.set(fencePath, claimBody, -1)))
                    .thenCompose(sent -> {
                        ZkPort.Transaction tx = sent.tx();
                        if (tx.code() == ZkCode.NONODE && tx.failedOp() == 1) {
                            // The partition's first claim ever: no fence node yet. Make it in the claim.
                            return sendClaim(
                                            tp,
                                            session,
                                            List.of(
                                                    ZkOp.createEphemeral(ownerPath, claimBody),
                                                    ZkOp.create(fencePath, claimBody),
                                                    ZkOp.set(fencePath, claimBody, 0)))
                                    .thenCompose(again -> settle(tp, again, session, memberId, onChange));
                        }
                        return settle(tp, sent, session, memberId, onChange);
                    })
                    .exceptionally(e -> Optional.empty());
        } catch (Exception e) { // a folder that could not be made, an operation that could not be built
            return CompletableFuture.completedFuture(Optional.empty());
        }
    }

    /**
     * A pipelined claim found no offset node (a partition never committed): it makes one, empty, conditioned on the
     * fence it just set, so that every claimed partition has an offset node (an operator's {@code set} in zkCli works on
     * it). One more round trip, only for a partition that never had an offset; the handoff of a committed one does not
     * pay it. Anything but success leaves the claim to {@link #claim}, which finds it its own and re-confirms it.
     */
    private CompletableFuture<Optional<ClaimResult>> createOffsetNode(TopicPartition tp, long session, ZkResult fence) {
        try {
            String offsetPath = ZkPaths.offset(group, tp);
            byte[] none = NodeCodec.offset(OffsetBody.none());
            return zk.multiInSessionAsync(
                            session,
                            List.of(
                                    ZkOp.check(
                                            ZkPaths.fence(group, tp),
                                            fence.stat().version()),
                                    ZkOp.create(offsetPath, none),
                                    ZkOp.set(offsetPath, none, 0)))
                    .thenApply(tx -> {
                        if (!tx.ok()) {
                            claimsInDoubt.noteIfLost(tp, session, tx.code());
                            return Optional.<ClaimResult>empty();
                        }
                        ZkStat offset = tx.results().get(2).stat();
                        return Optional.of(
                                claimed(tp, OffsetBody.none(), offset.version(), offset.czxid(), fence, session));
                    });
        } catch (Exception e) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
    }

    /** A claim transaction and the read of the offset node sent right behind it. */
    private record SentClaim(ZkPort.Transaction tx, CompletableFuture<Optional<ZkNode>> offset, int fenceOp) {}

    private CompletableFuture<SentClaim> sendClaim(TopicPartition tp, long session, List<ZkOp> ops) {
        CompletableFuture<ZkPort.Transaction> tx = zk.multiInSessionAsync(session, ops);
        CompletableFuture<Optional<ZkNode>> offset = zk.readAsync(ZkPaths.offset(group, tp), null);
        return tx.thenApply(t -> new SentClaim(t, offset, ops.size() - 1)); // the fence's set is the last operation
    }

    private CompletableFuture<Optional<ClaimResult>> settle(
            TopicPartition tp, SentClaim sent, long session, String memberId, Runnable onChange) {
        ZkPort.Transaction tx = sent.tx();
        if (tx.ok()) {
            // The fence moved: the offset read behind it is what this claim starts from.
            ZkResult fence = tx.results().get(sent.fenceOp());
            return sent.offset().thenCompose(read -> {
                String offsetPath = ZkPaths.offset(group, tp);
                if (read.isEmpty()) {
                    return createOffsetNode(tp, session, fence);
                }
                OffsetBody offset;
                try {
                    offset = NodeCodec.offset(zk.abs(offsetPath), read.get().data());
                } catch (CorruptNodeException e) {
                    return CompletableFuture.completedFuture(
                            Optional.<ClaimResult>empty()); // claim() undoes it, blocked
                }
                return CompletableFuture.completedFuture(Optional.of(claimed(
                        tp,
                        offset,
                        read.get().stat().version(),
                        read.get().stat().czxid(),
                        fence,
                        session)));
            });
        }
        if (tx.code() == ZkCode.NODEEXISTS && tx.failedOp() == 0) {
            String ownerPath = ZkPaths.owner(group, tp);
            return zk.readAsync(ownerPath, onChange).thenApply(owner -> heldByAnother(owner, ownerPath, memberId));
        }
        claimsInDoubt.noteIfLost(tp, session, tx.code());
        return CompletableFuture.completedFuture(Optional.empty());
    }

    /** Busy when another member's live owner node holds the partition; empty for {@link #claim} otherwise. */
    private Optional<ClaimResult> heldByAnother(Optional<ZkNode> owner, String ownerPath, String memberId) {
        if (owner.isEmpty() || owner.get().stat().ephemeralOwner() == 0) {
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

    /**
     * A commit's write of the offset node: a set of the version read; or, without a node, its creation and a set of
     * version 0 right after it, so that the result always carries a stat (a creation's does not): the node's version
     * and incarnation (czxid).
     */
    private List<ZkOp> rewriteOffset(String path, byte[] body, int expectedVersion) throws Exception {
        if (expectedVersion >= 0) {
            return List.of(ZkOp.set(path, body, expectedVersion));
        }
        return List.of(ZkOp.create(path, body), ZkOp.set(path, body, 0));
    }

    /**
     * A claim that landed: {@code fence} is the result of its fence write (its version and zxid: the claim's fencing
     * token), {@code offsetRead} the offset node it starts from.
     */
    private ClaimResult claimed(
            TopicPartition tp, OffsetBody offset, Optional<ZkNode> offsetRead, List<ZkResult> results, long session) {
        ZkResult last = results.get(results.size() - 1);
        if (offsetRead.isEmpty() && last.stat() != null) { // the claim created the offset node: its stat is the last
            return claimed(tp, offset, last.stat().version(), last.stat().czxid(), results.get(1), session);
        }
        return claimed(
                tp,
                offset,
                offsetRead.map(r -> r.stat().version()).orElse(-1),
                offsetRead.map(r -> r.stat().czxid()).orElse(0L),
                results.get(1),
                session);
    }

    private ClaimResult claimed(
            TopicPartition tp, OffsetBody offset, int offsetVersion, long created, ZkResult fence, long session) {
        claimsInDoubt.settled(tp);
        histories.set(tp, offset.history());
        if (fence.stat() == null) {
            throw new IllegalStateException("claim transaction of " + tp + " wrote its fence with " + fence);
        }
        return new ClaimResult.Claimed(
                new OffsetSnapshot(
                        offset.offset(),
                        offset.metadata(),
                        version(fence.stat().version(), offsetVersion),
                        offset.history(),
                        created,
                        offset.done()),
                new Lease(session, fence.stat().mzxid()));
    }

    // ------------------------------------------------------------------ versions: the fence's and the offset's

    /**
     * The version the SPI sees ({@link OffsetSnapshot#version()}): the fence node's version in the high 32 bits, the
     * offset node's plus one in the low ones (0: no offset node), so it moves with every claim and every write of the
     * offset and grows with both; {@link OffsetSnapshot#ABSENT} when neither node exists.
     */
    static long version(int fenceVersion, int offsetVersion) {
        if (fenceVersion < 0 && offsetVersion < 0) {
            return OffsetSnapshot.ABSENT;
        }
        return ((long) fenceVersion << 32) | ((offsetVersion + 1) & 0xFFFFFFFFL);
    }

    static int fenceVersion(long version) {
        return version == OffsetSnapshot.ABSENT ? -1 : (int) (version >> 32);
    }

    static int offsetVersion(long version) {
        return version == OffsetSnapshot.ABSENT ? -1 : (int) (version & 0xFFFFFFFFL) - 1;
    }

    /**
     * The fence of a commit or release at {@code version}: a check of the fence node's version, or, where the version
     * knew no fence node, its creation (which fails if any claim made one since).
     */
    private ZkOp fenceCheck(TopicPartition tp, long version) {
        int fence = fenceVersion(version);
        return fence >= 0
                ? ZkOp.check(ZkPaths.fence(group, tp), fence)
                : ZkOp.create(ZkPaths.fence(group, tp), new byte[0]);
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
                conflicted.add(r.partition()); // prepared under another session: never sent (see multiInSession)
            }
        }
        Instant now = clock.instant();
        Map<TopicPartition, List<CommitSample>> written = new HashMap<>();
        Map<TopicPartition, byte[]> bodies = new HashMap<>();
        for (CommitRequest r : pending) { // before any write: a body no reader would take refuses the whole commit
            OffsetBody next = committedBody(memberId, generation, r, now);
            written.put(r.partition(), next.history());
            try {
                bodies.put(r.partition(), NodeCodec.offset(next));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("commit of " + r.partition() + " refused: " + e.getMessage(), e);
            }
        }
        while (!pending.isEmpty()) {
            TransactionBatcher.Batch<CommitRequest> batch;
            try {
                batch = batcher.next(pending, 0, r -> {
                    List<ZkOp> ops = new ArrayList<>();
                    ops.add(ZkOp.check(ZkPaths.owner(group, r.partition()), -1));
                    ops.add(fenceCheck(r.partition(), r.expectedVersion()));
                    ops.addAll(rewriteOffset(
                            ZkPaths.offset(group, r.partition()),
                            bodies.get(r.partition()),
                            offsetVersion(r.expectedVersion())));
                    return ops;
                });
            } catch (Exception e) {
                throw ZkFailure.toStore("prepare commit", e);
            }
            List<CommitRequest> sent = batch.requests();
            Map<TopicPartition, Long> writtenBy = new HashMap<>();
            sent.forEach(r -> offsetWatches.committing(ZkPaths.offset(group, r.partition())));
            try {
                List<ZkResult> results = zk.multiInSession(session, batch.ops());
                for (int i = 0; i < sent.size(); i++) {
                    TopicPartition tp = sent.get(i).partition();
                    ZkResult last = results.get(batch.lastOp(i));
                    if (last.stat() == null) {
                        throw new IllegalStateException("commit transaction of " + tp + " ended with " + last);
                    }
                    committed.put(
                            tp,
                            version(
                                    Math.max(0, fenceVersion(sent.get(i).expectedVersion())),
                                    last.stat().version()));
                    created.put(tp, last.stat().czxid());
                    writtenBy.put(tp, last.stat().mzxid());
                    histories.set(tp, written.get(tp));
                }
                pending.removeAll(sent);
            } catch (ZkFailure e) {
                if (e.code() == ZkCode.SESSIONEXPIRED) {
                    pending.forEach(r -> conflicted.add(r.partition())); // the session ended: none of them can land
                    pending.clear();
                    continue;
                }
                int failed = e.failedOp();
                if (failed < 0) {
                    throw ZkFailure.toStore("commit", e);
                }
                CommitRequest bad = batch.requestOf(failed);
                conflicted.add(bad.partition());
                pending.remove(bad);
            } finally {
                sent.forEach(r -> offsetWatches.committed(
                        ZkPaths.offset(group, r.partition()), writtenBy.getOrDefault(r.partition(), 0L)));
            }
        }
        return new CommitOutcome(committed, created, conflicted);
    }

    /**
     * The offset node's body after {@code r}: the offset and its done value, who wrote it and when, and the
     * recent-commit history.
     */
    private OffsetBody committedBody(String memberId, long generation, CommitRequest r, Instant now) {
        return new OffsetBody(
                OptionalLong.of(r.offset()),
                r.metadata(),
                Optional.of(memberId),
                generation,
                Optional.of(now),
                histories.next(r.partition(), r.offset(), r.logEnd(), now),
                r.done());
    }

    /**
     * A release's final commit as a body. One whose done value the store cannot write (not one JSON object, or a body
     * over the limit) is written without it, so the partition is still released with its offset: the next owner
     * processes the records above it again (at least once).
     */
    private byte[] finalBody(String memberId, long generation, CommitRequest c, Instant now) {
        OffsetBody body = committedBody(memberId, generation, c, now);
        try {
            return NodeCodec.offset(body);
        } catch (IllegalArgumentException e) {
            LOG.warn("final commit of {}: {}; written without its done value", c.partition(), e.getMessage());
            return NodeCodec.offset(new OffsetBody(
                    body.offset(),
                    body.metadata(),
                    body.committedBy(),
                    body.generation(),
                    body.updatedAt(),
                    body.history()));
        }
    }

    @Override
    public Set<TopicPartition> releaseAll(String memberId, long generation, List<ReleaseRequest> releases) {
        Set<TopicPartition> released = new HashSet<>();
        Instant now = clock.instant();
        long session = zk.handleSession();
        // Prepared under another session: left to the caller, whose release() refuses them too.
        List<ReleaseRequest> pending = new ArrayList<>(
                releases.stream().filter(r -> r.session() == session).toList());
        while (!pending.isEmpty()) {
            TransactionBatcher.Batch<ReleaseRequest> batch;
            try {
                batch = batcher.next(pending, 0, r -> {
                    byte[] body = r.finalCommit()
                            .map(c -> finalBody(memberId, generation, c, now))
                            .orElse(null);
                    return List.of(
                            fenceCheck(r.partition(), r.expectedVersion()),
                            fenceOffset(r.partition(), r.expectedVersion(), body),
                            ZkOp.delete(ZkPaths.owner(group, r.partition()), -1));
                });
            } catch (Exception e) {
                throw ZkFailure.toStore("prepare release", e);
            }
            List<ReleaseRequest> sent = batch.requests();
            try {
                zk.multiInSession(session, batch.ops());
                sent.forEach(r -> {
                    histories.forget(r.partition());
                    released.add(r.partition());
                });
                pending.removeAll(sent);
            } catch (ZkFailure e) {
                int failed = e.failedOp();
                if (e.code() == ZkCode.SESSIONEXPIRED) {
                    return released; // prepared in another session: none of the rest can land either
                }
                if (failed < 0) {
                    // Not sent, or its answer lost: the caller must not take the rest as fenced (and drop their final
                    // offsets); it tries them again.
                    throw ZkFailure.toStore("release of " + sent.size() + " partitions", e);
                }
                // That one's offset moved (an edit) or its owner node is gone: left to the caller; the rest again.
                pending.remove(batch.requestOf(failed));
            } catch (StoreException e) {
                throw e;
            } catch (Exception e) {
                throw ZkFailure.toStore("release of " + sent.size() + " partitions", e);
            }
        }
        return released;
    }

    /**
     * The operation a release is fenced on besides the fence node: with {@code body} (a final commit) a set of the
     * offset node at {@code expectedVersion}'s offset version, else a check of it. Without an offset node ({@link OffsetSnapshot#ABSENT}) it is created, with
     * the final commit or with no offset: the creation fails if anyone else created the node meanwhile.
     */
    private ZkOp fenceOffset(TopicPartition tp, long expectedVersion, byte[] body) throws Exception {
        String offsetPath = ZkPaths.offset(group, tp);
        int offsetVersion = offsetVersion(expectedVersion);
        if (offsetVersion < 0) {
            return ZkOp.create(offsetPath, body != null ? body : NodeCodec.offset(OffsetBody.none()));
        }
        return body == null ? ZkOp.check(offsetPath, offsetVersion) : ZkOp.set(offsetPath, body, offsetVersion);
    }

    @Override
    public boolean release(TopicPartition tp, String memberId, long expectedVersion, long session) {
        String ownerPath = ZkPaths.owner(group, tp);
        try {
            zk.multiInSession(
                    session,
                    List.of(
                            fenceCheck(tp, expectedVersion),
                            fenceOffset(tp, expectedVersion, null),
                            ZkOp.delete(ownerPath, -1)));
            return true;
        } catch (ZkFailure e) {
            int failed = e.failedOp();
            if (failed == 2 && e.code() == ZkCode.NONODE) {
                return true; // owner node already gone (session ended): nothing left to release
            }
            return false;
        } catch (StoreException e) {
            throw e;
        } catch (Exception e) {
            throw ZkFailure.toStore("release " + ownerPath, e);
        }
    }

    @Override
    public OffsetSnapshot readOffset(TopicPartition tp, Runnable onChange) {
        String path = ZkPaths.offset(group, tp);
        // The fence first, sent in the background and answered before the offset read behind it.
        CompletableFuture<Optional<ZkNode>> fence = zk.readAsync(ZkPaths.fence(group, tp), null);
        // The watch before the read, so no change falls in between; a one-shot one if the server has no persistent
        // ones.
        boolean armed = onChange != null && offsetWatches.arm(path, onChange);
        Optional<ZkNode> read = zk.read(path, armed ? null : onChange);
        int fenceVersion = awaitRead(fence, ZkPaths.fence(group, tp))
                .map(f -> f.stat().version())
                .orElse(-1);
        if (read.isEmpty()) {
            return new OffsetSnapshot(OptionalLong.empty(), "", version(fenceVersion, -1), List.of(), 0);
        }
        OffsetBody body = NodeCodec.offset(zk.abs(path), read.get().data());
        histories.refresh(tp, body.history());
        return new OffsetSnapshot(
                body.offset(),
                body.metadata(),
                version(fenceVersion, read.get().stat().version()),
                body.history(),
                read.get().stat().czxid(),
                body.done());
    }

    private Optional<ZkNode> awaitRead(CompletableFuture<Optional<ZkNode>> read, String path) {
        try {
            return read.get(LISTING_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted reading " + zk.abs(path), e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof StoreException se) {
                throw se;
            }
            throw ZkFailure.toStore("read " + zk.abs(path), e.getCause() instanceof Exception c ? c : e);
        } catch (TimeoutException e) {
            throw ZkFailure.toStore("read " + zk.abs(path), e);
        }
    }

    @Override
    public Optional<OffsetSnapshot> readIfOwned(TopicPartition tp, String memberId, long session) {
        claimsInDoubt.syncIfInDoubt(tp, session, doubt -> undoOwnClaim(tp, memberId, doubt));
        OffsetSnapshot offset = readOffset(tp, null); // fence and offset before owner: see claim()
        return holds(tp, memberId, session) ? Optional.of(offset) : Optional.empty();
    }

    @Override
    public OptionalLong ownedVersion(TopicPartition tp, String memberId, long session) {
        claimsInDoubt.syncIfInDoubt(tp, session, doubt -> undoOwnClaim(tp, memberId, doubt));
        CompletableFuture<Optional<ZkNode>> fence = zk.readAsync(ZkPaths.fence(group, tp), null);
        Optional<ZkNode> offset = zk.read(ZkPaths.offset(group, tp), null); // before owner: see claim()
        int fenceVersion = awaitRead(fence, ZkPaths.fence(group, tp))
                .map(f -> f.stat().version())
                .orElse(-1);
        if (!holds(tp, memberId, session)) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(
                version(fenceVersion, offset.map(r -> r.stat().version()).orElse(-1)));
    }

    /**
     * The offset node's own version (the low half of the SPI version) and incarnation: a claim moves only the fence
     * half, an operator's {@code set}, even of the same offset, moves the offset node's.
     */
    @Override
    public boolean unwrittenSince(TopicPartition tp, OffsetSnapshot claimed, long version, long created) {
        return version != OffsetSnapshot.ABSENT
                && offsetVersion(claimed.version()) == offsetVersion(version)
                && (claimed.created() == 0 || created == 0 || claimed.created() == created);
    }

    /** Whether {@code memberId}'s owner node of {@code tp} exists in {@code session}, the current one. */
    private boolean holds(TopicPartition tp, String memberId, long session) {
        String ownerPath = ZkPaths.owner(group, tp);
        Optional<ZkNode> owner = zk.read(ownerPath, null);
        return owner.isPresent()
                && session != 0
                && session == zk.handleSession()
                && owner.get().stat().ephemeralOwner() == session
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
        return Optional.of(new OwnerInfo(
                body.memberId(),
                body.generation(),
                body.since(),
                zk.isCurrentSession(owner.get().stat().ephemeralOwner())));
    }
}
