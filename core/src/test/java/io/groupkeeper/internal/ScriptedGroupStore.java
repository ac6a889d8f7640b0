package io.groupkeeper.internal;

import io.groupkeeper.TopicPartition;
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
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A test double of one group's store for one member, without a server: it records every call ({@link #calls}), keeps
 * just enough state to answer as the fencing contract says (offset nodes with version and incarnation, this member's
 * owner nodes per session, other owners), and fails or answers as scripted: {@link #failNext} makes the next calls of
 * a method throw a {@link StoreException} (as a lost connection does), {@link #scriptClaim} overrides a claim's result.
 * Single-threaded, like the tests that use it.
 */
final class ScriptedGroupStore implements GroupStore {

    final List<String> calls = new ArrayList<>();
    /** The store's current session; {@link #newSession} moves it on and drops this member's owner nodes. */
    long session = 1;

    private long zxid = 100;
    private Optional<TargetAssignment> target = Optional.empty();
    private Runnable targetHook;
    private final Map<TopicPartition, OffsetSnapshot> offsets = new HashMap<>();
    /**
     * The version of each offset node's last write other than a claim's (a claim here rewrites the node, as claims did
     * before the fence node; ZooKeeper's now move only the fence): see {@link #unwrittenSince}.
     */
    private final Map<TopicPartition, Long> written = new HashMap<>();
    /** This member's owner nodes: partition to the session that holds it. */
    final Map<TopicPartition, Long> held = new HashMap<>();

    final Map<TopicPartition, String> others = new HashMap<>();
    final Map<TopicPartition, Runnable> claimHooks = new HashMap<>();
    private final Map<String, Deque<RuntimeException>> failures = new HashMap<>();
    private final Map<TopicPartition, Deque<ClaimResult>> claims = new HashMap<>();
    final Set<String> registered = new LinkedHashSet<>();
    /** While set, every call fails as with a lost connection (and is recorded). */
    boolean disconnected;
    /**
     * Set: the next registration lands, then this runs (a test drops the connection with it) and the call throws, as a
     * creation whose reply was lost with the connection does.
     */
    Runnable loseNextRegistrationReply;
    /** Set: the next commit's writes land, then the call throws, as a transaction whose reply was lost does. */
    boolean loseNextCommitReply;

    // ------------------------------------------------------------------ scripting

    /** Publishes {@code partitions} as this member's target at {@code generation}, firing the armed hook. */
    void target(long generation, TopicPartition... partitions) {
        target = Optional.of(new TargetAssignment(generation, new TreeSet<>(List.of(partitions))));
        Runnable hook = targetHook;
        targetHook = null;
        if (hook != null) {
            hook.run();
        }
    }

    /** The next {@code count} calls of {@code method} throw (a lost connection: nothing done). */
    ScriptedGroupStore failNext(String method, int count) {
        Deque<RuntimeException> q = failures.computeIfAbsent(method, m -> new ArrayDeque<>());
        for (int i = 0; i < count; i++) {
            q.add(new StoreException(method + " failed: connection loss (scripted)"));
        }
        return this;
    }

    ScriptedGroupStore scriptClaim(TopicPartition tp, ClaimResult result) {
        claims.computeIfAbsent(tp, t -> new ArrayDeque<>()).add(result);
        return this;
    }

    /** An offset node written by someone else (a commit of an earlier owner, an admin): a new version. */
    void writeOffset(TopicPartition tp, long offset) {
        OffsetSnapshot old = offsets.get(tp);
        long created = old == null ? ++zxid : old.created();
        offsets.put(
                tp,
                new OffsetSnapshot(
                        OptionalLong.of(offset), "", old == null ? 0 : old.version() + 1, List.of(), created));
        written.put(tp, stored(tp).version());
    }

    /** An offset node written by someone else with a done value (a previous owner's commit): a new version. */
    void writeOffset(TopicPartition tp, long offset, String done) {
        OffsetSnapshot old = offsets.get(tp);
        long created = old == null ? ++zxid : old.created();
        offsets.put(
                tp,
                new OffsetSnapshot(
                        OptionalLong.of(offset),
                        "",
                        old == null ? 0 : old.version() + 1,
                        List.of(),
                        created,
                        Optional.of(done)));
        written.put(tp, stored(tp).version());
    }

    /** The offset node deleted and created again by hand until its version is {@code version}: a new incarnation. */
    void recreateOffset(TopicPartition tp, long offset, long version) {
        offsets.put(tp, new OffsetSnapshot(OptionalLong.of(offset), "", version, List.of(), ++zxid));
        written.put(tp, version);
    }

    /** The offset node deleted by someone else (an operator's {@code offsets delete}). */
    void deleteOffset(TopicPartition tp) {
        offsets.remove(tp);
        written.remove(tp);
    }

    OffsetSnapshot stored(TopicPartition tp) {
        return offsets.getOrDefault(tp, OffsetSnapshot.absent());
    }

    /** The session ended: its owner nodes are gone; the store is in a new one. */
    void newSession() {
        session++;
        held.clear();
        registered.clear();
    }

    /** Another member takes {@code tp} (after this member's node went); this member's hook fires when it goes. */
    void takenBy(TopicPartition tp, String owner) {
        others.put(tp, owner);
        writeOffset(tp, stored(tp).offset().orElse(0));
    }

    void releasedByOther(TopicPartition tp) {
        others.remove(tp);
        Runnable hook = claimHooks.remove(tp);
        if (hook != null) {
            hook.run();
        }
    }

    List<String> callsOf(String method) {
        return calls.stream()
                .filter(c -> c.startsWith(method + " ") || c.equals(method))
                .toList();
    }

    private void call(String method, Object args) {
        calls.add(args == null ? method : method + " " + args);
        if (disconnected) {
            throw new StoreException(method + ": not connected (scripted)");
        }
        Deque<RuntimeException> q = failures.get(method);
        if (q != null && !q.isEmpty()) {
            throw q.poll();
        }
    }

    private boolean holds(TopicPartition tp, long inSession) {
        return inSession == session && Long.valueOf(inSession).equals(held.get(tp));
    }

    private long write(TopicPartition tp, OptionalLong offset, Optional<String> done) {
        long version = claimWrite(tp, offset, done);
        written.put(tp, version);
        return version;
    }

    private long claimWrite(TopicPartition tp, OptionalLong offset, Optional<String> done) {
        OffsetSnapshot old = offsets.get(tp);
        long version = old == null ? 1 : old.version() + 1; // a creation is a create and a set of version 0
        long created = old == null ? ++zxid : old.created();
        offsets.put(tp, new OffsetSnapshot(offset, "", version, List.of(), created, done));
        return version;
    }

    // ------------------------------------------------------------------ GroupStore

    @Override
    public String groupId() {
        return "g";
    }

    @Override
    public void ensureGroup(String assignor) {
        call("ensureGroup", null);
    }

    @Override
    public Registration registerMember(MemberInfo info) {
        call("registerMember", info.memberId());
        registered.add(info.memberId());
        if (loseNextRegistrationReply != null) {
            Runnable lost = loseNextRegistrationReply;
            loseNextRegistrationReply = null;
            lost.run();
            throw new StoreException("registerMember failed: connection loss (scripted: the node was created)");
        }
        return () -> {
            call("deregister", info.memberId());
            registered.remove(info.memberId());
        };
    }

    @Override
    public void deregisterMember(String memberId) {
        call("deregisterMember", memberId);
        registered.remove(memberId);
    }

    @Override
    public boolean isRegistered(String memberId) {
        call("isRegistered", memberId);
        return registered.contains(memberId);
    }

    /** The live members the leader reads; {@link #membersChanged} fires the hook it armed. */
    final Map<String, MemberInfo> members = new TreeMap<>();

    final List<String> memberProblems = new ArrayList<>();
    private Runnable membersHook;
    /** The published assignment, as the leader reads it first. */
    AssignmentSnapshot assignment = AssignmentSnapshot.empty();

    void join(String memberId, Optional<String> instanceId, String... topics) {
        members.put(
                memberId,
                new MemberInfo(memberId, instanceId, "host", new TreeSet<>(List.of(topics)), Instant.EPOCH, "sticky"));
    }

    void membersChanged() {
        Runnable hook = membersHook;
        if (hook != null) {
            hook.run();
        }
    }

    @Override
    public MembersSnapshot readMembers(Runnable onChange) {
        call("readMembers", null);
        membersHook = onChange;
        return new MembersSnapshot(new TreeMap<>(members), memberProblems);
    }

    @Override
    public LeaderElection election(String participantId, LeadershipListener listener) {
        return new LeaderElection() {
            @Override
            public void start() {}

            @Override
            public boolean isLeader() {
                return false;
            }

            @Override
            public long publish(
                    long expectedVersion,
                    long generation,
                    Map<String, ? extends Set<TopicPartition>> changedTargets,
                    Set<String> removedMembers,
                    java.util.SortedSet<String> staticMembers) {
                throw new StoreException("not the leader");
            }

            @Override
            public void close() {}
        };
    }

    @Override
    public AssignmentSnapshot readAssignment() {
        call("readAssignment", null);
        return assignment;
    }

    @Override
    public Optional<TargetAssignment> readTarget(String memberId, Runnable onChange) {
        call("readTarget", null);
        targetHook = onChange;
        return target;
    }

    @Override
    public ClaimResult claim(TopicPartition tp, String memberId, long generation, Runnable onChange) {
        call("claim", tp);
        Deque<ClaimResult> scripted = claims.get(tp);
        if (scripted != null && !scripted.isEmpty()) {
            ClaimResult r = scripted.poll();
            if (!(r instanceof ClaimResult.Claimed)) {
                claimHooks.put(tp, onChange);
            } else {
                held.put(tp, session);
            }
            return r;
        }
        if (others.containsKey(tp)) {
            claimHooks.put(tp, onChange);
            return new ClaimResult.Busy(others.get(tp));
        }
        held.put(tp, session); // new, or re-confirmed; a node of an earlier session of ours is replaced
        claimWrite(tp, stored(tp).offset(), stored(tp).done());
        return new ClaimResult.Claimed(stored(tp), new Lease(session, ++zxid));
    }

    @Override
    public CommitOutcome commit(String memberId, long generation, List<CommitRequest> requests) {
        call(
                "commit",
                requests.stream()
                        .map(r -> r.partition() + "=" + r.offset() + "@" + r.expectedVersion()
                                + r.done().map(d -> "+" + d).orElse(""))
                        .toList());
        Map<TopicPartition, Long> committed = new HashMap<>();
        Map<TopicPartition, Long> created = new HashMap<>();
        Set<TopicPartition> conflicted = new HashSet<>();
        for (CommitRequest r : requests) {
            TopicPartition tp = r.partition();
            if (!holds(tp, r.session()) || stored(tp).version() != r.expectedVersion()) {
                conflicted.add(tp);
            } else {
                committed.put(tp, write(tp, OptionalLong.of(r.offset()), r.done()));
                created.put(tp, stored(tp).created());
            }
        }
        if (loseNextCommitReply) {
            loseNextCommitReply = false;
            throw new StoreException("commit failed: connection loss (scripted: the writes landed)");
        }
        return new CommitOutcome(committed, created, conflicted);
    }

    @Override
    public boolean release(TopicPartition tp, String memberId, long expectedVersion, long inSession) {
        call("release", tp + "@" + expectedVersion);
        if (inSession != session) {
            return false;
        }
        if (!holds(tp, inSession)) {
            return true;
        }
        if (stored(tp).version() != expectedVersion) {
            return false;
        }
        held.remove(tp);
        return true;
    }

    @Override
    public Set<TopicPartition> releaseAll(String memberId, long generation, List<ReleaseRequest> releases) {
        call(
                "releaseAll",
                releases.stream()
                        .map(r -> r.partition() + "@" + r.expectedVersion()
                                + r.finalCommit()
                                        .map(c -> "+" + c.offset()
                                                + c.done().map(d -> "+" + d).orElse(""))
                                        .orElse(""))
                        .toList());
        Set<TopicPartition> released = new LinkedHashSet<>();
        for (ReleaseRequest r : releases) {
            TopicPartition tp = r.partition();
            if (holds(tp, r.session()) && stored(tp).version() == r.expectedVersion()) {
                r.finalCommit().ifPresent(c -> write(tp, OptionalLong.of(c.offset()), c.done()));
                held.remove(tp);
                released.add(tp);
            }
        }
        return released;
    }

    @Override
    public OffsetSnapshot readOffset(TopicPartition tp, Runnable onChange) {
        call("readOffset", tp);
        return stored(tp);
    }

    @Override
    public Optional<OffsetSnapshot> readIfOwned(TopicPartition tp, String memberId, long inSession) {
        call("readIfOwned", tp);
        return holds(tp, inSession) ? Optional.of(stored(tp)) : Optional.empty();
    }

    @Override
    public OptionalLong ownedVersion(TopicPartition tp, String memberId, long inSession) {
        call("ownedVersion", tp);
        return holds(tp, inSession) ? OptionalLong.of(stored(tp).version()) : OptionalLong.empty();
    }

    @Override
    public boolean unwrittenSince(TopicPartition tp, OffsetSnapshot claimed, long version, long created) {
        return written.getOrDefault(tp, OffsetSnapshot.ABSENT) <= version
                && (claimed.created() == 0 || created == 0 || claimed.created() == created);
    }

    @Override
    public Optional<OwnerInfo> readOwner(TopicPartition tp) {
        call("readOwner", tp);
        if (held.containsKey(tp)) {
            return Optional.of(new OwnerInfo("m", 0, Instant.EPOCH, held.get(tp) == session));
        }
        return Optional.ofNullable(others.get(tp)).map(o -> new OwnerInfo(o, 0, Instant.EPOCH, false));
    }
}
