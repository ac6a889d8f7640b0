package io.groupkeeper.testkit.sim;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.testkit.ForwardingZkPort;
import io.groupkeeper.testkit.InMemoryZooKeeper;
import io.groupkeeper.testkit.ModelTransactions;
import io.groupkeeper.testkit.NodeStat;
import io.groupkeeper.zkprotocol.ZkNode;
import io.groupkeeper.zkprotocol.ZkPort;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * The invariants, checked as the simulated users act (and once more when the group has settled):
 * <ul>
 *   <li>I1: no two members whose claims' sessions are alive process one partition at once (a member whose session
 *   ended without its knowing — paused, cut off — is a zombie: its processing is counted, not a violation);</li>
 *   <li>I2: a commit that lands comes from the member that holds the owner node in its current session;</li>
 *   <li>I4: a commit never lands over an external write its member has not adopted;</li>
 *   <li>no loss: every record from where the group (or the last external write) put a partition's start up to its log
 *   end is processed;</li>
 *   <li>I6, once settled: every partition owned by exactly one live member that processes it, the assignment balanced
 *   within one, every committed offset at the log end.</li>
 *   <li>I7: user code is told of a loss before anyone else processes the partition (unless its process was paused, or
 *   its session expired by the servers while connected, so it could not hear first: a zombie), and a zombie's records
 *   are bounded: one poll each time its process can run again (a second pause before its lanes ran, then a second
 *   resumption, allows a second overdue poll);</li>
 *   <li>I2 and I4 on every transaction the model applies ({@link #applied}), releases and writes whose reply was lost
 *   included: an offset node is written only by the session that holds its owner node (or by the operator and the
 *   admin), and never with a position prepared before an operator's write the writer had not seen;</li>
 *   <li>once settled, nothing left behind: every member node and owner node belongs to a live member (a closed
 *   member's nodes must not outlive it in its keeper's live session), every partition a live member owns has its
 *   owner node, and user code processes only partitions its member owns.</li>
 * </ul>
 *
 * <p>About 750 lines: every check reads the same record of what user code, operators and the model did; checks split
 * into classes would each need all of it.
 */
final class SimChecker {

    private static final long NO_FLOOR = -1;
    private static final long AT_NEXT_START = -2;

    private final InMemoryZooKeeper zk;
    private final String group;
    private final SimLog log;
    private final List<String> violations = new ArrayList<>();
    private final Map<TopicPartition, Long> logEnd = new HashMap<>();
    private final Map<TopicPartition, BitSet> processed = new HashMap<>();
    private final Map<TopicPartition, Long> floor = new HashMap<>();
    private final Map<TopicPartition, Integer> edits = new HashMap<>();
    private final java.util.Set<TopicPartition> committedSinceExternal = new java.util.HashSet<>();
    /** The transaction of each partition's last operator write of its offset node (the admin's included). */
    private final Map<TopicPartition, Long> operatorWriteZxid = new HashMap<>();
    /**
     * Final offsets handed over in a live session since the last operator write, unless they came too late (see
     * {@link #tooLate}): the store must then hold them, as it must hold a commit.
     */
    private final Map<TopicPartition, HandOver> handOvers = new HashMap<>();

    private Collection<SimMember> members = List.of();
    private java.util.function.Function<String, java.util.Set<TopicPartition>> targets = id -> java.util.Set.of();
    private long zombieRecords;
    /**
     * Whether a zombie's bound counts from its process's last resumption (true), or from its claim's end as the
     * checker did before seed 72775 ({@link #zombieBoundFromClaimEnd}: a test shows that rule's false I7).
     */
    private boolean boundPerResumption = true;

    private java.util.function.LongSupplier adminSession = () -> -1;
    /** Who holds each owner node, as the applied transactions tell it: path to session. */
    private final Map<String, Long> ownerSessions = new HashMap<>();
    /** The member each owner node names, as the applied transactions tell it: path to member id. */
    private final Map<String, String> ownerMembers = new HashMap<>();
    /** The offset each offset node holds, as the applied transactions tell it (absent: none, corrupt or no node). */
    private final Map<String, Long> offsetValues = new HashMap<>();
    /**
     * Where each claim's read of its offset node stood, per session and offset node ({@link #claimRead}): the newest
     * transaction the read reflects (it saw every write up to it, none after).
     */
    private final Map<String, Long> claimReadAt = new HashMap<>();
    /** What each process's user code last said it writes: the operator writes of the partition it had seen. */
    private final Map<SimProcess, Map<TopicPartition, Integer>> writing = new HashMap<>();

    SimChecker(InMemoryZooKeeper zk, String group, SimLog log) {
        this.zk = zk;
        this.group = group;
        this.log = log;
        ModelTransactions.observe(zk, this::applied);
    }

    /** The admin's session: its writes are an operator's. */
    void admin(java.util.function.LongSupplier session) {
        this.adminSession = session;
    }

    void members(Collection<SimMember> all) {
        this.members = all;
    }

    /** Where the settled check reads each member's published target from. */
    void targets(java.util.function.Function<String, java.util.Set<TopicPartition>> targetOf) {
        this.targets = targetOf;
    }

    List<String> violations() {
        return violations;
    }

    long zombieRecords() {
        return zombieRecords;
    }

    /** The old rule: a zombie's records counted from its claim's end, however often its process resumed since. */
    void zombieBoundFromClaimEnd() {
        boundPerResumption = false;
    }

    /** The schedule could not go on (a livelock the simulator's step bound caught): a failure like any violation. */
    void stuck(String what) {
        violation(what);
        log.event("STUCK");
    }

    private void violation(String what) {
        violations.add(what);
    }

    /** A violation another model found (Kafka's, in a world whose members mirror their offsets). */
    void report(String what) {
        violation(what);
        log.event("VIOLATION " + what);
    }

    /** {@code also} hears every transaction the model applies as well, after this checker. */
    void alsoObserve(ModelTransactions.Listener also) {
        this.also = also;
    }

    private ModelTransactions.Listener also = (session, zxid, writes) -> {};

    // ------------------------------------------------------------------ the log

    long logEnd(TopicPartition tp) {
        return logEnd.getOrDefault(tp, 0L);
    }

    void produced(TopicPartition tp, long records) {
        logEnd.merge(tp, records, Long::sum);
    }

    int edits(TopicPartition tp) {
        return edits.getOrDefault(tp, 0);
    }

    // ------------------------------------------------------------------ what users and operators do

    /**
     * User code starts {@code tp} at {@code start}; {@code fromNothing}: no offset was stored, so it starts at the log
     * end (the start position "latest"), legitimately skipping what came before — unless an offset was committed or
     * handed over since the last operator write, which the store must then still hold.
     */
    void started(SimMember m, TopicPartition tp, long start, boolean fromNothing) {
        started(m, tp, start, fromNothing, true);
    }

    /** {@code fromClaim}: user code starts from what its claim read (not from an adoption, whose read came later). */
    private void started(SimMember m, TopicPartition tp, long start, boolean fromNothing, boolean fromClaim) {
        if ((fromClaim || fromNothing) && readBeforeLastOperatorWrite(m, tp, fromNothing)) {
            // Seed 86237 of the unkindest schedules: the claim read "no offset" and made the empty offset node, and an
            // operator's reset landed after it, before user code heard of the claim. Seed 52919: the claim read an
            // offset, and the operator's reset landed after that read. Nothing stored was lost: the member owes the
            // write's adoption (its offset watch), a release of what it prepared before it loses to it (I4), and the
            // floor stays the operator's.
            log.event(m.id + " starts " + tp + (fromNothing ? "" : " at " + start) + " from a claim that read before "
                    + "the last operator write; owes its adoption");
            return;
        }
        if (fromClaim && !holds(m, tp)) {
            // Seed 105338 of the unkindest schedules: m3 claimed t:0 and read 28, then its process was paused past its
            // session's end; m1 claimed t:0, committed and handed 167 over; m3's user code, resumed, heard of its old
            // claim and started at 28. Its claim no longer holds: what it read is not what the store keeps, and what
            // a zombie processes is bounded by I7. Only a start from a claim that holds is judged against the store.
            log.event(m.id + " starts " + tp + " at " + start + " from a claim that no longer holds: a zombie's start");
            return;
        }
        if (fromNothing) {
            if (committedSinceExternal.contains(tp) || handOvers.containsKey(tp)) {
                violation("lost offset: " + m.id + " found no stored offset for " + tp + " although one was "
                        + "committed or handed over since the last operator write; starts at " + start);
            }
            floor.put(tp, start);
            return;
        }
        HandOver h = handOvers.get(tp);
        if (h != null && h.landed() && start < h.offset()) {
            // Judged whatever the heir found, not only nothing: a handed-over final offset the release did not store
            // (or one stored and then written over) shows as an heir starting at an older commit. Only once the
            // release landed (the model's truth): a release that never landed leaves the heir the last stored offset,
            // a repeat at-least-once allows (seed 7486: the write failed, the session expired, the heir claimed).
            violation("lost offset: " + m.id + " starts " + tp + " at " + start + " although " + h.offset()
                    + " was handed over since the last operator write, by a release that landed");
        } else if (h != null && start < h.offset()) {
            log.event(m.id + " starts " + tp + " at " + start + ", behind " + h.offset() + " handed over by a release "
                    + "that has not landed: a repeat");
        }
        long f = floor.getOrDefault(tp, NO_FLOOR);
        if (f == NO_FLOOR || f == AT_NEXT_START) {
            floor.put(tp, start);
        }
    }

    /**
     * Whether {@code m} holds {@code tp} by a claim whose read of the offset node came before the partition's last
     * operator write, so that user code, starting from what the claim read, has not seen that write. {@code fromNothing}
     * (the claim read no offset, and made the empty node): the node holds an offset now, written by that operator write
     * after the claim. Otherwise the claim's read is judged by where it stood ({@link #claimReadAt}): a pipelined claim's
     * read goes out right behind its transaction and a follower may answer it without an operator write applied since.
     */
    boolean readBeforeLastOperatorWrite(SimMember m, TopicPartition tp, boolean fromNothing) {
        Long written = operatorWriteZxid.get(tp);
        Optional<NodeStat> owner = zk.stat(ownerPath(tp));
        if (written == null || !holds(m, tp) || owner.isEmpty()) {
            return false;
        }
        if (!fromNothing) {
            Long read = claimReadAt.get(claimRead(owner.get().ephemeralOwner(), offsetPath(tp)));
            return read != null && read < written;
        }
        Optional<NodeStat> offset = zk.stat(offsetPath(tp));
        return owner.get().czxid() < written
                && offset.isPresent()
                && offset.get().mzxid() == written
                && offsetValues.containsKey(offsetPath(tp));
    }

    /**
     * The operator writes of {@code tp} that {@code m}'s user code has seen when it starts from its claim: all of them,
     * except the last when the claim read the offset node before that write (it is owed as an adoption).
     */
    int editsSeenAtStart(SimMember m, TopicPartition tp, boolean fromNothing) {
        return readBeforeLastOperatorWrite(m, tp, fromNothing) ? edits(tp) - 1 : edits(tp);
    }

    /**
     * {@code port}, a process's store's, telling this checker what each pipelined claim's read of an offset node saw
     * (the only reads of offset nodes sent in the background): the transaction that last wrote the node, so that the
     * read saw every operator write up to it and none after.
     */
    ZkPort claimReads(ZkPort port) {
        return new ForwardingZkPort(port) {
            @Override
            public CompletableFuture<Optional<ZkNode>> readAsync(String path, Runnable hook) {
                long session = delegate.handleSession();
                String abs = delegate.abs(path);
                CompletableFuture<Optional<ZkNode>> read = delegate.readAsync(path, hook);
                if (!abs.startsWith(offsetsPrefix()) || partitionOf(abs) == null) {
                    return read;
                }
                return read.whenComplete((node, failed) -> {
                    if (node != null && node.isPresent()) {
                        claimReadAt.put(
                                claimRead(session, abs), node.get().stat().mzxid());
                    }
                });
            }
        };
    }

    /**
     * A claim of {@code session} (a transaction that moves a fence node: a claim, a re-confirmation) is applied as
     * {@code zxid}. One that checks the offset node's version (or makes the node) read it before it and lands only if
     * no write came between: its read stands just before {@code zxid}. A pipelined one reads it right behind: until
     * that read is answered ({@link #claimReads}), nothing is known.
     */
    private void claimed(long session, long zxid, List<ModelTransactions.Write> writes) {
        for (ModelTransactions.Write w : writes) {
            if (w.kind() != ModelTransactions.Kind.SET || !w.path().startsWith(fencesPrefix())) {
                continue;
            }
            String offset = offsetsPrefix() + w.path().substring(fencesPrefix().length());
            boolean checked = writes.stream()
                    .anyMatch(o -> o.path().equals(offset)
                            && (o.kind() == ModelTransactions.Kind.CHECK && o.version() >= 0
                                    || o.kind() == ModelTransactions.Kind.CREATE));
            if (checked) {
                claimReadAt.put(claimRead(session, offset), zxid - 1);
            } else {
                claimReadAt.remove(claimRead(session, offset));
            }
        }
    }

    private static String claimRead(long session, String offsetPath) {
        return Long.toHexString(session) + " " + offsetPath;
    }

    private String fencesPrefix() {
        return ZkLayout.group(group) + "/fences/";
    }

    void adopted(SimMember m, TopicPartition tp, long position, boolean fromNothing) {
        log.event(m.id + " adopted " + tp + " at " + position);
        started(m, tp, position, fromNothing, false);
    }

    /** Hears every record user code processes, before this checker judges it (the resets' checks: SimResets). */
    interface Processed {
        void processed(SimMember m, TopicPartition tp, long offset, SimMember.Processing p);
    }

    private Processed processedToo = (m, tp, offset, p) -> {};

    void alsoProcessed(Processed also) {
        this.processedToo = also;
    }

    void processed(SimMember m, TopicPartition tp, long offset, SimMember.Processing p) {
        processedToo.processed(m, tp, offset, p);
        processed.computeIfAbsent(tp, k -> new BitSet()).set((int) offset);
        if (!zk.isSessionAlive(p.session)) {
            zombieRecords++;
            if (boundPerResumption && p.zombieResumption != m.proc.resumptions) {
                // A process paused again before its lanes ran, then resumed: one more overdue poll may run before the
                // news, as after the first resumption (seed 72775: two pauses back to back, 40 records after each).
                p.zombieResumption = m.proc.resumptions;
                p.zombieRecords = 0;
            }
            p.zombieRecords++;
            if (p.zombieRecords > SimMember.MAX_RECORDS_PER_POLL) {
                violation("I7: " + m.id + "'s user code processed " + p.zombieRecords + " records of " + tp
                        + " after its claim's session ended"
                        + (boundPerResumption ? ", since its process last resumed" : "") + " (a zombie's bound: one "
                        + "poll, " + SimMember.MAX_RECORDS_PER_POLL + " records)");
                log.event("VIOLATION I7 " + tp);
            }
            return;
        }
        for (SimMember other : members) {
            if (other == m || other.crashed() || other.left || other.leaving) {
                continue;
            }
            SimMember.Processing q = other.processing.get(tp);
            if (q == null) {
                continue;
            }
            if (zk.isSessionAlive(q.session)) {
                violation("I1: " + m.id + " and " + other.id + " both process " + tp + " (record " + offset
                        + ") with live sessions");
                log.event("VIOLATION I1 " + tp);
            } else if (other.proc.lastUnwarnedAt < q.since) {
                violation("I7: " + m.id + " processes " + tp + " (record " + offset + ") while " + other.id
                        + ", whose claim's session ended, was not told of the loss (its process was neither paused "
                        + "nor expired while connected since it was given the partition)");
                log.event("VIOLATION I7 " + tp);
            }
        }
    }

    /**
     * The session a partition was claimed in, as user code hears of the claim: the owner node's session if it is the
     * member's current one; else 0 (the claim's session has ended meanwhile: what user code does with it is a zombie's).
     */
    long claimSession(SimMember m, TopicPartition tp) {
        return holds(m, tp) ? m.sessionId() : 0;
    }

    /** Whether {@code m} holds {@code tp}'s owner node: in its process's current session, naming it. */
    private boolean holds(SimMember m, TopicPartition tp) {
        Optional<NodeStat> owner = zk.stat(ownerPath(tp));
        return owner.isPresent()
                && owner.get().ephemeralOwner() == m.sessionId()
                && ModelTransactions.ownerMember(zk, ownerPath(tp))
                        .filter(m.id::equals)
                        .isPresent();
    }

    void committed(SimMember m, TopicPartition tp, long offset, SimMember.Processing p) {
        if (!holds(m, tp)) {
            Optional<NodeStat> owner = zk.stat(ownerPath(tp));
            violation("I2: a commit of " + tp + " at " + offset + " by " + m.id + " landed while "
                    + (owner.isEmpty()
                            ? "nobody"
                            : "session 0x" + Long.toHexString(owner.get().ephemeralOwner()) + " ("
                                    + ModelTransactions.ownerMember(zk, ownerPath(tp))
                                            .orElse("?") + ")")
                    + " held its owner node");
        }
        if (p != null && p.seenEdits < edits(tp)) {
            violation("I4: " + m.id + " committed " + tp + " at " + offset + " over an external write it never saw");
        }
        committedSinceExternal.add(tp);
        log.routine(m.id + " committed " + tp + "=" + offset);
    }

    /**
     * A final offset handed over on revocation. The store must keep it only if the member had seen every operator write
     * of the partition: one prepared before an operator's write loses to that write (I4).
     */
    void handedOver(SimMember m, TopicPartition tp, long offset, int seenEdits, long claimSession) {
        // A zombie's hand-over (its claim's session already over: a process paused past its timeout that closes as
        // it resumes) cannot be kept: no write of that session can land any more.
        if (seenEdits == edits(tp) && zk.isSessionAlive(claimSession)) {
            handOvers.put(tp, new HandOver(m.proc, m.id, claimSession, offset, false));
        }
        log.event(m.id + " hands over " + tp + "=" + offset);
    }

    /** {@code m}'s user code is about to write {@code tp}'s offset (a commit, a final offset) having seen {@code seen}. */
    void writing(SimMember m, TopicPartition tp, int seen) {
        writing.computeIfAbsent(m.proc, k -> new HashMap<>()).put(tp, seen);
    }

    /**
     * Every transaction the model applies. I2: an offset node is written (created or set) only in the session that
     * holds the partition's owner node, before or through this transaction; the operator (session 0) and the admin
     * are exempt. I4: a position written after an operator's write of the node, other than the one the node holds,
     * comes from user code that had seen that write (what it said when it asked for the write: {@link #writing}).
     */
    private void applied(long session, long zxid, List<ModelTransactions.Write> writes) {
        try {
            check(session, zxid, writes);
        } finally {
            also.applied(session, zxid, writes);
        }
    }

    private void check(long session, long zxid, List<ModelTransactions.Write> writes) {
        Map<String, Long> before = new HashMap<>();
        Map<String, String> membersBefore = new HashMap<>();
        for (ModelTransactions.Write w : writes) {
            if (w.path().startsWith(ownersPrefix())) {
                before.putIfAbsent(w.path(), ownerSessions.getOrDefault(w.path(), 0L));
                if (!membersBefore.containsKey(w.path())) {
                    membersBefore.put(w.path(), ownerMembers.get(w.path()));
                }
                if (w.kind() == ModelTransactions.Kind.CREATE) {
                    tooLate(w.path(), session);
                    ownerSessions.put(w.path(), session);
                    w.ownerMember()
                            .ifPresentOrElse(id -> ownerMembers.put(w.path(), id), () -> ownerMembers.remove(w.path()));
                } else if (w.kind() == ModelTransactions.Kind.DELETE) {
                    releaseLanded(w.path(), session, before.get(w.path()), membersBefore.get(w.path()), writes);
                    ownerSessions.remove(w.path());
                    ownerMembers.remove(w.path());
                }
            }
        }
        Map<String, Long> valuesBefore = new HashMap<>(offsetValues);
        for (ModelTransactions.Write w : writes) {
            if (w.path().startsWith(offsetsPrefix())) {
                if (w.kind() == ModelTransactions.Kind.DELETE
                        || w.offset().isEmpty() && w.kind() != ModelTransactions.Kind.CHECK) {
                    offsetValues.remove(w.path());
                } else if (w.offset().isPresent()) {
                    offsetValues.put(w.path(), w.offset().getAsLong());
                }
            }
        }
        if (session == 0 || session == adminSession.getAsLong()) {
            for (ModelTransactions.Write w : writes) {
                TopicPartition tp = w.path().startsWith(offsetsPrefix()) && w.kind() != ModelTransactions.Kind.CHECK
                        ? partitionOf(w.path())
                        : null;
                if (tp != null) {
                    operatorWriteZxid.put(tp, zxid);
                }
            }
            return;
        }
        claimed(session, zxid, writes);
        for (ModelTransactions.Write w : writes) {
            if (!w.path().startsWith(offsetsPrefix())
                    || (w.kind() != ModelTransactions.Kind.CREATE && w.kind() != ModelTransactions.Kind.SET)) {
                continue;
            }
            TopicPartition tp = partitionOf(w.path());
            if (tp == null) {
                continue;
            }
            String owner = ownerPath(tp);
            long held = before.containsKey(owner) ? before.get(owner) : ownerSessions.getOrDefault(owner, 0L);
            if (held != session && ownerSessions.getOrDefault(owner, 0L) != session) {
                violation("I2: transaction " + zxid + " of session 0x" + Long.toHexString(session) + " wrote " + tp
                        + "'s offset node"
                        + (w.offset().isPresent() ? " (" + w.offset().getAsLong() + ")" : "")
                        + " while " + (held == 0 ? "nobody" : "session 0x" + Long.toHexString(held))
                        + " held its owner node");
                log.event("VIOLATION I2 " + tp);
            } else if (w.committedBy().isPresent()) {
                // Members of one process share its session: the session alone does not tell one member's write from
                // another's. The offset body names its writer; the owner node names its holder (before this
                // transaction, as a release's final write, or after it).
                String writer = w.committedBy().get();
                String heldBy = membersBefore.containsKey(owner) ? membersBefore.get(owner) : ownerMembers.get(owner);
                if (!writer.equals(heldBy) && !writer.equals(ownerMembers.get(owner))) {
                    violation("I2: transaction " + zxid + " of session 0x" + Long.toHexString(session) + " wrote "
                            + tp + "'s offset node"
                            + (w.offset().isPresent() ? " (" + w.offset().getAsLong() + ")" : "")
                            + " for " + writer + " while " + (heldBy == null ? "no member" : heldBy)
                            + " held its owner node");
                    log.event("VIOLATION I2 " + tp);
                }
                // Fenced by the claim it holds: the same transaction checks the partition's fence node at a version
                // (or makes it, where no claim made one). The schedules never make a commit that the session, the
                // owner node's existence and the offset node's version let through while the fence would refuse it
                // (those conditions cover every stale commit a schedule makes; the fence guards against a member
                // sending one under a claim that is no longer its own), so a missing fence is judged on the
                // transaction itself.
                if (w.offset().isPresent() && !fenced(writes, tp)) {
                    violation("I2: transaction " + zxid + " of session 0x" + Long.toHexString(session) + " wrote "
                            + tp + "=" + w.offset().getAsLong() + " for " + writer + " without checking its fence "
                            + "node (a commit that lands whatever claim came since)");
                    log.event("VIOLATION I2 " + tp);
                }
            }
            if (w.offset().isPresent()) {
                Integer seen = members.stream()
                        .map(m -> m.proc)
                        .filter(p -> p.sessionId() == session)
                        .findFirst()
                        .map(p -> writing.getOrDefault(p, Map.of()).get(tp))
                        .orElse(null);
                Long was = valuesBefore.get(w.path());
                boolean overwrites = was == null || was != w.offset().getAsLong();
                if (seen != null && seen < edits(tp) && overwrites) {
                    violation("I4: transaction " + zxid + " of session 0x" + Long.toHexString(session) + " wrote " + tp
                            + "=" + w.offset().getAsLong() + " prepared before an operator write it never saw");
                    log.event("VIOLATION I4 " + tp);
                }
            }
        }
    }

    /**
     * A final offset handed over by {@code member} (of {@code proc}) in {@code session}; {@code landed}: a release of
     * that member's owner node has been applied since (in that session or, re-claimed to hand it over, in a later one).
     */
    private record HandOver(SimProcess proc, String member, long session, long offset, boolean landed) {}

    /**
     * The owner node at {@code ownerPath}, held by {@code holder} in session {@code heldIn}, was deleted by a
     * transaction of {@code session}: a release if the holder's own session sent it and it also wrote or checked the
     * partition's offset node (the servers' deletions at a session's end come as session 0; a claim's undo touches no
     * offset node; a member clearing its node of an ended session sends from another). A final offset that member
     * handed over is judged from now on: the release carried it, or should have.
     */
    private void releaseLanded(
            String ownerPath, long session, Long heldIn, String holder, List<ModelTransactions.Write> writes) {
        if (session == 0
                || session == adminSession.getAsLong()
                || heldIn == null
                || heldIn != session
                || holder == null) {
            return;
        }
        handOvers.replaceAll((tp, h) -> ownerPath(tp).equals(ownerPath)
                        && h.member().equals(holder)
                        && !h.landed()
                        && writes.stream().anyMatch(w -> w.path().equals(offsetPath(tp)))
                ? new HandOver(h.proc(), h.member(), h.session(), h.offset(), true)
                : h);
    }

    /**
     * {@code session} claims the partition of {@code ownerPath}. A final offset handed over whose session has ended
     * meanwhile and whose process has no new session yet came too late: its release could not land (the connection
     * was down when the servers ended the session), and the member's promise, to hand it over in its next session, no
     * longer holds once another member holds the partition. The heir may then start without it. Once the handing
     * process has a new session it must have handed the offset over before anyone else claims (issue 34's finding 4).
     */
    private void tooLate(String ownerPath, long session) {
        handOvers.entrySet().removeIf(e -> {
            HandOver h = e.getValue();
            boolean late = ownerPath(e.getKey()).equals(ownerPath)
                    && session != h.session()
                    && !zk.isSessionAlive(h.session())
                    && !(h.proc().store.isConnected() && h.proc().sessionId() != h.session());
            if (late) {
                log.event("hand-over of " + e.getKey() + " came too late: session 0x" + Long.toHexString(session)
                        + " claims it before " + h.proc().tag + " has a new session");
            }
            return late;
        });
    }

    private String ownersPrefix() {
        return ZkLayout.owners(group) + "/";
    }

    /** Whether {@code writes} check {@code tp}'s fence node at a version, or create it. */
    private boolean fenced(List<ModelTransactions.Write> writes, TopicPartition tp) {
        String fence = ZkLayout.fence(group, tp);
        return writes.stream()
                .anyMatch(w -> w.path().equals(fence)
                        && (w.kind() == ModelTransactions.Kind.CHECK && w.version() >= 0
                                || w.kind() == ModelTransactions.Kind.CREATE));
    }

    private String offsetsPrefix() {
        return ZkLayout.offsets(group) + "/";
    }

    /** The partition of an offset node's path ({@code .../offsets/<topic>/<n>}), or null for another node. */
    private TopicPartition partitionOf(String offsetPath) {
        String[] rest = offsetPath.substring(offsetsPrefix().length()).split("/");
        if (rest.length != 2) {
            return null;
        }
        try {
            return new TopicPartition(rest[0], Integer.parseInt(rest[1]));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** An operator wrote {@code tp}'s offset node: {@code value} is where processing starts again (null: unknown). */
    void external(TopicPartition tp, String what, Long value) {
        edits.merge(tp, 1, Integer::sum);
        handOvers.remove(tp);
        if (value == null) {
            committedSinceExternal.remove(tp);
        } else {
            committedSinceExternal.add(tp);
        }
        floor.put(tp, value == null ? AT_NEXT_START : value);
        log.event("operator " + what + " " + tp + (value == null ? "" : " -> " + value));
    }

    // ------------------------------------------------------------------ once settled

    /** Whether the group looks settled (checked without recording anything): the run may end early. */
    boolean looksSettled(
            int partitions,
            String topic,
            java.util.function.Function<TopicPartition, java.util.OptionalLong> committed,
            java.util.Set<TopicPartition> excluded) {
        int before = violations.size();
        List<String> saved = new ArrayList<>(violations);
        settled(partitions, topic, committed, excluded);
        boolean quiet = violations.size() == before;
        violations.clear();
        violations.addAll(saved);
        return quiet;
    }

    /**
     * The settled group's checks; partitions in {@code excluded} (offset nodes still corrupt) must only not be processed,
     * and balance is not judged while there are any (a stopped partition is targeted but not owned).
     */
    void settled(
            int partitions,
            String topic,
            java.util.function.Function<TopicPartition, java.util.OptionalLong> committed,
            java.util.Set<TopicPartition> excluded) {
        List<SimMember> live = members.stream().filter(SimMember::alive).toList();
        if (live.isEmpty()) {
            violation("I6: no live member at the end");
            return;
        }
        leftBehind(live, topic, excluded);
        SortedSet<TopicPartition> all = new TreeSet<>();
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (SimMember m : live) {
            SortedSet<TopicPartition> a = m.assignment();
            min = Math.min(min, a.size());
            max = Math.max(max, a.size());
            for (TopicPartition tp : a) {
                if (!all.add(tp)) {
                    violation("I1: " + tp + " in two members' assignments at the end");
                }
                if (!m.processing.containsKey(tp)) {
                    violation("I6: " + m.id + " owns " + tp + " but its user code does not process it");
                }
            }
        }
        for (SimMember m : live) {
            for (TopicPartition tp : excluded) {
                if (m.processing.containsKey(tp)) {
                    violation(m.id + " processes " + tp + " while its offset node is corrupt");
                }
            }
        }
        for (SimMember m : live) {
            SortedSet<TopicPartition> target = new TreeSet<>(targets.apply(m.id));
            target.removeAll(excluded);
            if (!target.equals(m.assignment())) {
                violation("I6: " + m.id + " owns " + m.assignment() + " but its published target is " + target);
            }
        }
        if (excluded.isEmpty() && max - min > 1) {
            violation("I6: assignment not balanced at the end (" + min + ".." + max + " partitions per member)");
        }
        for (int p = 0; p < partitions; p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            if (excluded.contains(tp)) {
                continue;
            }
            if (!all.contains(tp)) {
                violation("I6: " + tp + " owned by no live member at the end");
                continue;
            }
            java.util.OptionalLong c = committed.apply(tp);
            if (c.isEmpty() || c.getAsLong() != logEnd(tp)) {
                violation("I6: " + tp + " committed " + c + " at the end, log end " + logEnd(tp));
            }
            long f = floor.getOrDefault(tp, NO_FLOOR);
            if (f >= 0) {
                BitSet done = processed.getOrDefault(tp, new BitSet());
                int missing = done.nextClearBit((int) f);
                if (missing < logEnd(tp)) {
                    violation("lost: " + tp + " record " + missing + " never processed (start " + f + ", log end "
                            + logEnd(tp) + ")");
                }
            }
        }
    }

    /**
     * Nothing left behind once settled: every member node is a live member's, and every live member has one; every
     * owner node is held by a live
     * member that owns the partition, in its process's session; every partition a live member owns has such a node;
     * user code processes only partitions its member owns. Partitions in {@code excluded} (corrupt) are not judged.
     */
    private void leftBehind(List<SimMember> live, String topic, java.util.Set<TopicPartition> excluded) {
        java.util.Set<String> liveIds = new java.util.HashSet<>();
        live.forEach(m -> liveIds.add(m.id));
        for (String name : zk.children(ZkLayout.members(group))) {
            if (!liveIds.contains(name)) {
                String path = ZkLayout.members(group) + "/" + name;
                violation("left behind: member node " + path + " of a member that is not live, in session 0x"
                        + zk.stat(path)
                                .map(st -> Long.toHexString(st.ephemeralOwner()))
                                .orElse("?"));
            }
        }
        for (String p : zk.children(ZkLayout.owners(group) + "/" + topic)) {
            TopicPartition tp = new TopicPartition(topic, Integer.parseInt(p));
            if (excluded.contains(tp)) {
                continue;
            }
            String path = ownerPath(tp);
            Optional<String> who = ModelTransactions.ownerMember(zk, path);
            boolean owned =
                    live.stream().anyMatch(m -> holds(m, tp) && m.assignment().contains(tp));
            if (!owned) {
                violation("left behind: owner node " + path + " (" + who.orElse("?") + ", session 0x"
                        + zk.stat(path)
                                .map(st -> Long.toHexString(st.ephemeralOwner()))
                                .orElse("?")
                        + ") held by no live member that owns " + tp);
            }
        }
        for (SimMember m : live) {
            String node = ZkLayout.members(group) + "/" + m.id;
            if (zk.stat(node).filter(st -> st.ephemeralOwner() == m.sessionId()).isEmpty()) {
                violation("left behind: live member " + m.id + " has no member node " + node + " in its session");
            }
            for (TopicPartition tp : m.assignment()) {
                if (!excluded.contains(tp) && !holds(m, tp)) {
                    violation(m.id + " owns " + tp + " but does not hold its owner node");
                }
            }
            for (TopicPartition tp : m.processing.keySet()) {
                if (!m.assignment().contains(tp)) {
                    violation(m.id + "'s user code processes " + tp + ", which its member does not own");
                }
            }
        }
    }

    private String ownerPath(TopicPartition tp) {
        return ZkLayout.owner(group, tp);
    }

    String offsetPath(TopicPartition tp) {
        return ZkLayout.offset(group, tp);
    }
}
