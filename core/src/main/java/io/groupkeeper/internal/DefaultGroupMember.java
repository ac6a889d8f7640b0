package io.groupkeeper.internal;

import io.groupkeeper.CommitResult;
import io.groupkeeper.CommitResult.Status;
import io.groupkeeper.GroupKeeperException;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.ClaimResult;
import io.groupkeeper.spi.CommitOutcome;
import io.groupkeeper.spi.CommitRequest;
import io.groupkeeper.spi.ConnectionEvent;
import io.groupkeeper.spi.ConnectionListener;
import io.groupkeeper.spi.CoordinationStore;
import io.groupkeeper.spi.GroupStore;
import io.groupkeeper.spi.LeaderElection;
import io.groupkeeper.spi.LeadershipListener;
import io.groupkeeper.spi.MemberIdInUseException;
import io.groupkeeper.spi.MemberInfo;
import io.groupkeeper.spi.OffsetSnapshot;
import io.groupkeeper.spi.Registration;
import io.groupkeeper.spi.ReleaseRequest;
import io.groupkeeper.spi.TargetAssignment;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The member state machine. All protocol steps run on the member's lane; user threads only call {@link #commit},
 * {@link #refresh} and the queries, which synchronise with the lane on {@link #lock}.
 *
 * <p>Following the target (one reconcile step): read the own target (re-arming its watch); revoke what is owned but
 * no longer targeted (listener first, so user code can commit, then a fenced release); claim what is targeted but
 * not owned: a partition still held by its previous owner is claimed when that owner's node goes (the store's hook
 * re-runs the step). So a partition is never processed by two members (I1), and partitions that do not move are
 * never touched (I5).
 *
 * <p>Connection care (I7): on SUSPENDED or LOST every owned partition is reported lost at once, with no commit, so
 * processing stops before the session can expire; on reconnection the member re-registers if its session was new
 * and follows its target again.
 */
public final class DefaultGroupMember implements GroupMember {

    private static final Logger LOG = LoggerFactory.getLogger(DefaultGroupMember.class);
    private static final long RETRY_MIN_MS = 50;
    private static final long RETRY_MAX_MS = 2_000;
    private static final long CLOSE_TIMEOUT_SECONDS = 60;
    private static final long REGISTRATION_RETRY_MS = 250;
    private static final int PARALLEL_CLAIMS = 16;

    private enum State { LATENT, STARTED, CLOSED }

    /** What this member knows of a partition it owns. */
    private static final class Owned {
        long version;
        OptionalLong offset;
        final io.groupkeeper.spi.Lease lease;

        Owned(OffsetSnapshot snapshot, io.groupkeeper.spi.Lease lease) {
            this.version = snapshot.version();
            this.offset = snapshot.offset();
            this.lease = lease;
        }
    }

    private final MemberConfig config;
    private final CoordinationStore coordination;
    private final GroupStore store;
    private final Clock clock;
    private final ScheduledExecutorService scheduler;
    private final ExecutorService workers;
    private final SerialExecutor lane;
    private final Rebalancer rebalancer;
    private final Consumer<GroupMember> onClosed;
    private final ConnectionListener connectionListener;

    /**
     * Guards {@link #owned}, held only briefly and never across a ZooKeeper round trip, so a connection loss is acted
     * on at once even while a commit waits on ZooKeeper.
     */
    private final Object lock = new Object();
    /** Serialises commits and refreshes with each other and with the lane's check for external offset edits. */
    private final java.util.concurrent.locks.ReentrantLock commitLock = new java.util.concurrent.locks.ReentrantLock();
    /**
     * Partitions whose owner nodes may be ours although this member does not own them (dropped by a connection in
     * doubt that turned out a blip; claims that landed as the connection dropped or whose answer was lost), each with
     * whether user code had been told it was assigned. Each step re-confirms those still targeted and hands over the
     * others. Guarded by {@link #lock}.
     */
    private final SortedMap<TopicPartition, Dropped> dropped = new TreeMap<>();

    /** A dropped partition: whether user code was told it was assigned, and the session its owner node may be of. */
    private record Dropped(boolean known, long session) {
    }
    /** Runs the listener's callbacks, in order, apart from the protocol lane (which may wait on ZooKeeper). */
    private final SerialExecutor callbacks;
    private final Map<TopicPartition, Owned> owned = new TreeMap<>();
    /**
     * While the revocation callback runs: the partitions being revoked, and the final offsets user code handed over
     * for them ({@link #commitOnRelease}), written with their release. Guarded by {@link #lock}.
     */
    private final Set<TopicPartition> revoking = new HashSet<>();
    private final Map<TopicPartition, FinalOffset> finalOffsets = new HashMap<>();

    private record FinalOffset(long offset, OptionalLong logEnd) {
    }

    // Lane-confined state.
    private final SortedSet<TopicPartition> waiting = new TreeSet<>();
    private final Map<TopicPartition, String> reportedProblems = new HashMap<>();
    private Registration registration;
    private LeaderElection election;
    private volatile boolean suspended;
    private boolean reconcilePending;
    /** A claimWaiting is queued on the lane; set from watch threads, so atomic (one hop instead of two). */
    private final java.util.concurrent.atomic.AtomicBoolean claimPending = new java.util.concurrent.atomic.AtomicBoolean();
    /** The lane's own view of suspension, for logging the first suspension once. */
    private boolean laneSuspended;
    private long retryDelayMs = RETRY_MIN_MS;

    private volatile long generation;
    private volatile State state = State.LATENT;

    public DefaultGroupMember(MemberConfig config, CoordinationStore coordination, Clock clock,
                              ExecutorService workers, ScheduledExecutorService scheduler,
                              Consumer<GroupMember> onClosed) {
        this.config = config;
        this.coordination = coordination;
        this.store = coordination.group(config.groupId());
        this.clock = clock;
        this.scheduler = scheduler;
        this.workers = workers;
        this.onClosed = onClosed;
        this.lane = new SerialExecutor(workers, "member " + config.groupId() + "/" + config.memberId());
        this.callbacks = new SerialExecutor(workers, "callbacks " + config.groupId() + "/" + config.memberId());
        this.rebalancer = new Rebalancer(config, store, clock,
                new SerialExecutor(workers, "rebalancer " + config.groupId() + "/" + config.memberId()), scheduler);
        this.connectionListener = event -> {
            if (event == ConnectionEvent.SUSPENDED || event == ConnectionEvent.LOST) {
                dropEverything(); // at once, on the store's thread: commits are refused from this instant (I7)
            }
            lane.execute(() -> onConnection(event));
        };
    }

    @Override
    public String groupId() {
        return config.groupId();
    }

    @Override
    public String memberId() {
        return config.memberId();
    }

    @Override
    public long generation() {
        return generation;
    }

    @Override
    public boolean isLeader() {
        LeaderElection e = election;
        return e != null && e.isLeader() && rebalancer.isActive();
    }

    @Override
    public SortedSet<TopicPartition> assignment() {
        synchronized (lock) {
            return Collections.unmodifiableSortedSet(new TreeSet<>(owned.keySet()));
        }
    }

    @Override
    public void start() {
        // A start given up on (timeout, interrupt) is closed once its join is done: never a member nobody holds.
        awaitLane(startAsync(), "start", " (ZooKeeper unreachable?); closing it",
                () -> CompletableFuture.runAsync(this::close, workers));
    }

    /**
     * The join runs on the member's lane; the future completes when it is done. On failure the member is closed (it
     * leaves its keeper's list) before the future completes exceptionally.
     */
    @Override
    public CompletableFuture<Void> startAsync() {
        synchronized (this) {
            if (state != State.LATENT) {
                throw new IllegalStateException("member " + describe() + " already " + state.name().toLowerCase());
            }
            state = State.STARTED;
        }
        CompletableFuture<Void> started = new CompletableFuture<>();
        lane.execute(() -> {
            try {
                join();
            } catch (RuntimeException e) {
                state = State.CLOSED;
                coordination.removeConnectionListener(connectionListener);
                closeQuietly();
                onClosed.accept(this);
                started.completeExceptionally(e);
                return;
            }
            config.metrics().memberStarted(config.groupId(), config.memberId(), () -> generation, () -> {
                synchronized (lock) {
                    return owned.size();
                }
            });
            LOG.info("member {} started (topics {}, assignor {}, store {})", describe(),
                    new TreeSet<>(config.topics()), config.assignor().name(), coordination.describe());
            started.complete(null);
        });
        return started;
    }

    /** On the lane: registers, joins the leader election and takes the first step towards the target. */
    private void join() {
        registration = registerWaitingForPredecessor();
        coordination.addConnectionListener(connectionListener);
        election = store.election(config.memberId(), new LeadershipListener() {
            @Override
            public void isLeader() {
                rebalancer.activate(election);
            }

            @Override
            public void notLeader() {
                rebalancer.deactivate();
            }
        });
        election.start();
        reconcile();
    }

    /**
     * Makes sure the group exists and registers the member node. A static member restarted after a crash finds its
     * instance id still held by its previous process's session until that session expires; it waits for that (up to
     * the registration timeout) instead of failing, as Kafka's static members replace their predecessor.
     */
    private Registration registerWaitingForPredecessor() {
        long deadline = System.nanoTime() + config.registrationTimeout().toNanos();
        boolean groupChecked = false;
        while (true) {
            try {
                if (groupChecked) {
                    return store.registerMember(memberInfo());
                }
                groupChecked = true;
                return store.join(config.assignor().name(), memberInfo());
            } catch (MemberIdInUseException e) {
                if (System.nanoTime() >= deadline) {
                    throw e;
                }
                LOG.info("member {}: id still held by another session (a predecessor that crashed?); waiting for it "
                        + "to expire", describe());
                try {
                    Thread.sleep(REGISTRATION_RETRY_MS); // a backoff, bounded by the registration timeout
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private MemberInfo memberInfo() {
        return new MemberInfo(config.memberId(), config.instanceId(), config.host(), new TreeSet<>(config.topics()),
                clock.instant(), config.assignor().name());
    }

    // ---------------------------------------------------------------- user-thread API

    @Override
    public CommitResult commit(Map<TopicPartition, Long> offsets) {
        return commit(offsets, Map.of());
    }

    @Override
    public CommitResult commit(Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> logEndOffsets) {
        requireValidOffsets(offsets);
        long started = System.nanoTime();
        Map<TopicPartition, Status> statuses = new HashMap<>();
        Map<TopicPartition, OptionalLong> adopted = new HashMap<>();
        SortedSet<TopicPartition> lost = new TreeSet<>();
        commitLock.lock();
        try {
            List<CommitRequest> requests = new ArrayList<>();
            Map<TopicPartition, Owned> seen = new HashMap<>();
            synchronized (lock) {
                offsets.forEach((tp, offset) -> {
                    Owned o = owned.get(tp);
                    if (o == null) {
                        statuses.put(tp, Status.NOT_OWNED);
                    } else {
                        seen.put(tp, o);
                        Long logEnd = logEndOffsets.get(tp);
                        requests.add(new CommitRequest(tp, offset, o.version, o.lease.session(),
                                logEnd == null ? OptionalLong.empty() : OptionalLong.of(logEnd)));
                    }
                });
            }
            if (!requests.isEmpty()) {
                CommitOutcome outcome = store.commit(config.memberId(), generation, requests); // no lock held: see class doc
                for (CommitRequest r : requests) {
                    Long newVersion = outcome.committed().get(r.partition());
                    if (newVersion == null) {
                        resolveConflict(r.partition(), seen.get(r.partition()), statuses, adopted, lost);
                        continue;
                    }
                    synchronized (lock) {
                        Owned o = seen.get(r.partition());
                        o.version = newVersion;
                        o.offset = OptionalLong.of(r.offset());
                        // Lost meanwhile (connection suspended): written while still the owner, but not owned now.
                        statuses.put(r.partition(), owned.get(r.partition()) == o ? Status.COMMITTED : Status.NOT_OWNED);
                    }
                }
            }
        } finally {
            commitLock.unlock();
        }
        reportLost(lost, "commit fenced");
        config.metrics().committed(config.groupId(), config.memberId(),
                count(statuses, Status.COMMITTED), count(statuses, Status.ADOPTED), count(statuses, Status.NOT_OWNED),
                System.nanoTime() - started);
        return CommitResult.of(statuses, adopted);
    }

    @Override
    public SortedSet<TopicPartition> commitOnRelease(Map<TopicPartition, Long> offsets,
                                                     Map<TopicPartition, Long> logEndOffsets) {
        requireValidOffsets(offsets);
        SortedSet<TopicPartition> taken = new TreeSet<>();
        synchronized (lock) {
            offsets.forEach((tp, offset) -> {
                if (revoking.contains(tp) && owned.containsKey(tp)) {
                    Long logEnd = logEndOffsets.get(tp);
                    finalOffsets.put(tp, new FinalOffset(offset, logEnd == null ? OptionalLong.empty()
                            : OptionalLong.of(logEnd)));
                    taken.add(tp);
                }
            });
        }
        return taken;
    }

    @Override
    public CommitResult refresh(Collection<TopicPartition> partitions) {
        Map<TopicPartition, Status> statuses = new HashMap<>();
        Map<TopicPartition, OptionalLong> adopted = new HashMap<>();
        SortedSet<TopicPartition> lost = new TreeSet<>();
        commitLock.lock();
        try {
            for (TopicPartition tp : new TreeSet<>(partitions)) {
                Owned o;
                synchronized (lock) {
                    o = owned.get(tp);
                }
                if (o == null) {
                    statuses.put(tp, Status.NOT_OWNED);
                } else {
                    resolveConflict(tp, o, statuses, adopted, lost);
                }
            }
        } finally {
            commitLock.unlock();
        }
        reportLost(lost, "offset node taken over");
        return CommitResult.of(statuses, adopted);
    }

    /**
     * Under {@link #commitLock}: the stored offset of a partition owned as {@code o} may have moved; adopt it or give
     * the partition up. The read happens without {@link #lock}; the result applies only if {@code o} is still owned.
     */
    private void resolveConflict(TopicPartition tp, Owned o, Map<TopicPartition, Status> statuses,
                                 Map<TopicPartition, OptionalLong> adopted, SortedSet<TopicPartition> lost) {
        Optional<OffsetSnapshot> now;
        try {
            now = store.readIfOwned(tp, config.memberId(), o.lease.session());
        } catch (io.groupkeeper.spi.CorruptNodeException e) {
            LOG.error("member {}: {}; giving up {} until the node is fixed", describe(), e.getMessage(), tp);
            now = Optional.empty();
        }
        synchronized (lock) {
            if (owned.get(tp) != o) {
                statuses.put(tp, Status.NOT_OWNED); // lost meanwhile
                return;
            }
            if (now.isEmpty()) {
                owned.remove(tp);
                statuses.put(tp, Status.NOT_OWNED);
                lost.add(tp);
            } else if (now.get().version() != o.version) {
                LOG.warn("member {}: stored offset of {} was changed externally to {} (node version {} -> {}); "
                        + "adopting it", describe(), tp, describe(now.get().offset()), o.version, now.get().version());
                o.version = now.get().version();
                o.offset = now.get().offset();
                statuses.put(tp, Status.ADOPTED);
                adopted.put(tp, o.offset);
            } else {
                statuses.put(tp, Status.UNCHANGED);
            }
        }
    }

    private static void requireValidOffsets(Map<TopicPartition, Long> offsets) {
        offsets.forEach((tp, offset) -> {
            if (offset == null || offset < 0) {
                throw new IllegalArgumentException("offset for " + tp + " must be >= 0, was " + offset);
            }
        });
    }

    private static int count(Map<TopicPartition, Status> statuses, Status status) {
        return (int) statuses.values().stream().filter(s -> s == status).count();
    }

    private void reportLost(SortedSet<TopicPartition> lost, String why) {
        if (!lost.isEmpty()) {
            config.metrics().partitionsLost(config.groupId(), config.memberId(), lost.size());
            LOG.warn("member {}: lost {} ({}): another member or session owns them now", describe(), lost, why);
            notifyAsync("onPartitionsLost", () -> config.listener().onPartitionsLost(lost));
            scheduleReconcile();
        }
    }

    @Override
    public OptionalLong committed(TopicPartition partition) {
        return store.readOffset(partition, null).offset();
    }

    // ---------------------------------------------------------------- the protocol, on the lane

    private void scheduleReconcile() {
        lane.execute(() -> {
            if (!reconcilePending) {
                reconcilePending = true;
                lane.execute(this::reconcile);
            }
        });
    }

    private void reconcile() {
        reconcilePending = false;
        if (state != State.STARTED || suspended) {
            return;
        }
        withMdc(() -> {
            try {
                reconcileStep();
                retryDelayMs = RETRY_MIN_MS;
            } catch (RuntimeException e) {
                LOG.warn("member {}: rebalance step failed, retrying in {} ms: {}", describe(), retryDelayMs, e.toString());
                long delay = retryDelayMs;
                retryDelayMs = Math.min(RETRY_MAX_MS, retryDelayMs * 2);
                scheduler.schedule(this::scheduleReconcile, delay, TimeUnit.MILLISECONDS);
            }
        });
    }

    private void reconcileStep() {
        long started = System.nanoTime();
        Optional<TargetAssignment> target = store.readTarget(config.memberId(), this::scheduleReconcile);
        SortedSet<TopicPartition> wanted = target.map(TargetAssignment::partitions).orElse(Collections.emptySortedSet());
        long newGeneration = target.map(TargetAssignment::generation).orElse(0L);
        boolean newTarget = newGeneration != generation;
        generation = newGeneration;

        SortedSet<TopicPartition> revoke = new TreeSet<>();
        synchronized (lock) {
            for (TopicPartition tp : owned.keySet()) {
                if (!wanted.contains(tp)) {
                    revoke.add(tp);
                }
            }
        }
        if (!revoke.isEmpty()) {
            revokeAndRelease(revoke);
        }
        releaseDroppedNotWanted(wanted);

        waiting.retainAll(wanted);
        reportedProblems.keySet().retainAll(wanted);
        SortedMap<TopicPartition, OptionalLong> gained = claim(wanted);
        synchronized (lock) {
            // Re-confirmed ones are ours again; the rest stay remembered until re-confirmed or handed over, since the
            // target may move them before a claim succeeds.
            dropped.keySet().removeAll(owned.keySet());
        }
        if (newTarget || !revoke.isEmpty() || !gained.isEmpty()) {
            config.metrics().rebalanced(config.groupId(), config.memberId(), generation, gained.size(), revoke.size(),
                    System.nanoTime() - started);
            LOG.info("member {}: generation {}: gained {}, revoked {}, waiting for {}, owns {} partitions, took {} ms",
                    describe(), generation, gained.keySet(), revoke, waiting, assignment().size(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        }
    }

    /**
     * Tries to claim each candidate not owned yet. A partition still held by its previous owner (or blocked by a
     * corrupt node) waits; the store wakes {@link #claimWaiting} when that changes.
     */
    private SortedMap<TopicPartition, OptionalLong> claim(Collection<TopicPartition> candidates) {
        List<TopicPartition> todo = new ArrayList<>();
        synchronized (lock) {
            for (TopicPartition tp : candidates) {
                if (!owned.containsKey(tp)) {
                    todo.add(tp);
                }
            }
        }
        SortedMap<TopicPartition, OptionalLong> gained = new TreeMap<>();
        // Claims are independent round trips: a batch runs concurrently (ZooKeeper pipelines them on the session's
        // connection), so taking over k partitions costs about one claim's latency rather than k of them.
        for (int from = 0; from < todo.size() && !suspended; from += PARALLEL_CLAIMS) {
            List<TopicPartition> batch = todo.subList(from, Math.min(todo.size(), from + PARALLEL_CLAIMS));
            Map<TopicPartition, ClaimResult> results = claimAll(batch);
            for (TopicPartition tp : batch) {
                ClaimResult result = results.get(tp);
                if (result instanceof ClaimResult.Claimed claimed) {
                    synchronized (lock) {
                        if (suspended) {
                            // The connection dropped meanwhile: the owner node may be ours (same session after a
                            // blip). Remembered like any dropped partition: re-confirmed or handed over later.
                            dropped.putIfAbsent(tp, new Dropped(false, claimed.lease().session()));
                            continue;
                        }
                        owned.put(tp, new Owned(claimed.offset(), claimed.lease()));
                    }
                    waiting.remove(tp);
                    reportedProblems.remove(tp);
                    gained.put(tp, claimed.offset().offset());
                } else if (result instanceof ClaimResult.Busy) {
                    waiting.add(tp);
                } else if (result instanceof ClaimResult.Blocked blocked) {
                    waiting.add(tp);
                    if (!blocked.problem().equals(reportedProblems.put(tp, blocked.problem()))) {
                        LOG.error("member {}: cannot take {}: {}. Fix or delete the node; other partitions are "
                                + "unaffected.", describe(), tp, blocked.problem());
                    }
                }
            }
        }
        notifyAssigned(gained);
        // Queued behind this step rather than run in it: arming the watches costs a round trip per partition, which
        // would delay the step's end (and start(), whose first step this may be). An edit made meanwhile is still
        // caught: the version read is compared with the claim's.
        gained.keySet().forEach(tp -> lane.execute(() -> onOffsetNodeChanged(tp)));
        return gained;
    }

    /**
     * Claims {@code batch} concurrently: every claim but the first is offered to the worker pool, and the lane then
     * runs each claim no worker has started yet itself, so a busy or bounded pool delays claims but never blocks
     * them. Never throws: a claim that failed (ZooKeeper trouble) is left out of the result and its partition waits
     * for a retry. Such a claim may still have succeeded on the server, so its partition is remembered as
     * {@link #dropped}: a later step re-confirms it or hands it over, never leaves it held.
     */
    private Map<TopicPartition, ClaimResult> claimAll(List<TopicPartition> batch) {
        long gen = generation;
        long session = coordination.sessionId();
        Map<TopicPartition, FutureTask<ClaimResult>> tasks = new LinkedHashMap<>();
        for (TopicPartition tp : batch) {
            FutureTask<ClaimResult> task = new FutureTask<>(() -> store.claim(tp, config.memberId(), gen,
                    this::scheduleClaimWaiting));
            if (!tasks.isEmpty()) {
                try {
                    workers.execute(task);
                } catch (RejectedExecutionException e) {
                    // run below, on the lane
                }
            }
            tasks.put(tp, task);
        }
        Map<TopicPartition, ClaimResult> results = new HashMap<>();
        boolean failed = false;
        for (Map.Entry<TopicPartition, FutureTask<ClaimResult>> t : tasks.entrySet()) {
            t.getValue().run(); // a no-op when a worker ran or runs it
            try {
                results.put(t.getKey(), t.getValue().get());
            } catch (ExecutionException e) {
                failed = true;
                waiting.add(t.getKey());
                synchronized (lock) {
                    dropped.putIfAbsent(t.getKey(), new Dropped(false, session));
                }
                LOG.warn("member {}: claim of {} failed, retrying: {}", describe(), t.getKey(), e.getCause().toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failed = true;
                waiting.add(t.getKey());
            }
        }
        if (failed) {
            scheduler.schedule(this::scheduleClaimWaiting, retryDelayMs, TimeUnit.MILLISECONDS);
        }
        return results;
    }

    private void scheduleClaimWaiting() {
        if (claimPending.compareAndSet(false, true)) {
            lane.execute(this::claimWaiting);
        }
    }

    /** A partition this member waits for may have been released: claim it without re-reading the target. */
    private void claimWaiting() {
        claimPending.set(false);
        if (state != State.STARTED || suspended || waiting.isEmpty()) {
            return;
        }
        withMdc(() -> {
            long started = System.nanoTime();
            try {
                SortedMap<TopicPartition, OptionalLong> gained = claim(new TreeSet<>(waiting));
                if (!gained.isEmpty()) {
                    config.metrics().rebalanced(config.groupId(), config.memberId(), generation, gained.size(), 0,
                            System.nanoTime() - started);
                    LOG.info("member {}: generation {}: gained {} (released by their previous owners), waiting for {}, "
                                    + "owns {} partitions", describe(), generation, gained.keySet(), waiting,
                            assignment().size());
                }
            } catch (RuntimeException e) {
                LOG.warn("member {}: claim failed, retrying with a full step: {}", describe(), e.toString());
                scheduler.schedule(this::scheduleReconcile, RETRY_MIN_MS, TimeUnit.MILLISECONDS);
            }
        });
    }

    /**
     * Listener first (user code stops and commits), then a fenced release of each partition (I1, pain point 2): the
     * partitions together in one atomic write, with the final offsets handed over in the callback.
     */
    private void revokeAndRelease(SortedSet<TopicPartition> revoke) {
        synchronized (lock) {
            revoking.addAll(revoke);
        }
        Map<TopicPartition, FinalOffset> finals;
        try {
            notifySync("onPartitionsRevoked", () -> config.listener().onPartitionsRevoked(revoke));
        } finally {
            synchronized (lock) {
                revoking.clear();
                finals = new HashMap<>(finalOffsets);
                finalOffsets.clear();
            }
        }
        List<ReleaseRequest> requests = new ArrayList<>();
        synchronized (lock) {
            for (TopicPartition tp : revoke) {
                Owned o = owned.remove(tp);
                if (o != null) {
                    FinalOffset f = finals.get(tp);
                    requests.add(new ReleaseRequest(tp, o.version, o.lease.session(), Optional.ofNullable(f).map(
                            x -> new CommitRequest(tp, x.offset(), o.version, o.lease.session(), x.logEnd()))));
                }
            }
        }
        long started = System.nanoTime();
        int committed = releaseFenced(requests);
        if (!finals.isEmpty() && !requests.isEmpty()) {
            config.metrics().committed(config.groupId(), config.memberId(), committed, 0, finals.size() - committed,
                    System.nanoTime() - started);
        }
    }

    /**
     * Releases partitions this member no longer owns, in as few transactions as the store allows, writing the final
     * offsets they carry; one the store left out (its offset moved, its owner node is gone) is released alone, without
     * its final offset. On a store failure the rest stay remembered as {@link #dropped}, so a later step hands them
     * over (without another callback: user code already let go). Returns how many final offsets were written.
     */
    private int releaseFenced(List<ReleaseRequest> requests) {
        if (requests.isEmpty()) {
            return 0;
        }
        Set<TopicPartition> released = new HashSet<>();
        int committed = 0;
        try {
            released.addAll(store.releaseAll(config.memberId(), generation, requests));
            for (ReleaseRequest r : requests) {
                if (released.contains(r.partition())) {
                    committed += r.finalCommit().isPresent() ? 1 : 0;
                    continue;
                }
                if (r.finalCommit().isPresent()) {
                    LOG.warn("member {}: final offset {} of {} not written: its offset node changed meanwhile (an "
                            + "admin edit?), which wins, or its owner node is gone; releasing it", describe(),
                            r.finalCommit().get().offset(), r.partition());
                }
                release(r.partition(), r.expectedVersion(), r.session());
                released.add(r.partition());
            }
        } catch (RuntimeException e) {
            synchronized (lock) {
                requests.stream().filter(r -> !released.contains(r.partition()))
                        .forEach(r -> dropped.putIfAbsent(r.partition(), new Dropped(false, r.session())));
            }
            throw e;
        }
        return committed;
    }

    /**
     * After a connection blip the session (and so our owner nodes) may have survived. Partitions dropped then and no
     * longer targeted are released here, or the next owner would wait for our session to end; those still targeted
     * are re-confirmed by the claim (and forgotten here once they are).
     */
    private void releaseDroppedNotWanted(SortedSet<TopicPartition> wanted) {
        SortedMap<TopicPartition, Dropped> stale;
        synchronized (lock) {
            stale = new TreeMap<>(dropped);
            stale.keySet().removeAll(wanted);
        }
        SortedMap<TopicPartition, Long> held = new TreeMap<>();
        stale.forEach((tp, d) -> store.ownedVersion(tp, config.memberId(), d.session())
                .ifPresent(v -> held.put(tp, v)));
        if (!held.isEmpty()) {
            // User code that was told "lost" gets a revocation, to confirm it let go (the Kafka adapter waits for its
            // polling thread) before the next owner may start (I1); nothing is committed. Partitions it never heard of
            // are released without a callback.
            SortedSet<TopicPartition> handOver = new TreeSet<>(held.keySet());
            SortedSet<TopicPartition> known = new TreeSet<>();
            synchronized (lock) {
                handOver.stream().filter(tp -> dropped.containsKey(tp) && dropped.get(tp).known()).forEach(known::add);
            }
            if (!known.isEmpty()) {
                notifySync("onPartitionsRevoked", () -> config.listener().onPartitionsRevoked(known));
            }
            List<ReleaseRequest> requests = new ArrayList<>();
            held.forEach((tp, version) -> requests.add(new ReleaseRequest(tp, version, stale.get(tp).session(),
                    Optional.empty())));
            releaseFenced(requests);
            LOG.info("member {}: handed over {}, held since before the reconnection and moved to others meanwhile",
                    describe(), handOver);
        }
        synchronized (lock) {
            dropped.keySet().removeAll(stale.keySet());
        }
    }

    private void release(TopicPartition tp, long version, long session) {
        long expected = version;
        for (int attempt = 0; attempt < 5; attempt++) {
            if (store.release(tp, config.memberId(), expected, session)) {
                return;
            }
            OptionalLong now = store.ownedVersion(tp, config.memberId(), session);
            if (now.isEmpty()) {
                return; // not ours any more: nothing to release
            }
            expected = now.getAsLong();
        }
        throw new GroupKeeperException("member " + describe() + " could not release " + tp
                + ": its offset node keeps changing");
    }

    /** Arms a watch on an owned partition's offset node so external edits are noticed at once (I4). */
    private void watchOffset(TopicPartition tp) {
        boolean moved;
        // Compare under the commit lock, so the version read and the version this member last wrote are consistent
        // (no false alarm from a read that overtook this member's own commit). Never wait long for it on the lane:
        // a commit stuck in a ZooKeeper retry must not delay connection handling; check again shortly instead.
        boolean locked;
        try {
            locked = commitLock.tryLock(50, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (!locked) {
            scheduler.schedule(() -> lane.execute(() -> onOffsetNodeChanged(tp)), RETRY_MIN_MS, TimeUnit.MILLISECONDS);
            return;
        }
        try {
            OffsetSnapshot now = store.readOffset(tp, () -> lane.execute(() -> onOffsetNodeChanged(tp)));
            synchronized (lock) {
                Owned o = owned.get(tp);
                // != rather than >: a deleted and re-created node starts again at version 0.
                moved = o != null && now.version() != o.version;
            }
        } finally {
            commitLock.unlock();
        }
        if (moved) {
            SortedSet<TopicPartition> changed = new TreeSet<>(List.of(tp));
            notifyAsync("onOffsetsChanged", () -> config.listener().onOffsetsChanged(changed));
        }
    }

    private void onOffsetNodeChanged(TopicPartition tp) {
        if (state != State.STARTED || suspended) {
            return;
        }
        synchronized (lock) {
            if (!owned.containsKey(tp)) {
                return;
            }
        }
        try {
            watchOffset(tp);
        } catch (RuntimeException e) {
            LOG.debug("member {}: could not re-read offset of {}: {}", describe(), tp, e.toString());
            scheduler.schedule(() -> lane.execute(() -> onOffsetNodeChanged(tp)), RETRY_MAX_MS, TimeUnit.MILLISECONDS);
        }
    }

    private void onConnection(ConnectionEvent event) {
        if (state != State.STARTED) {
            return;
        }
        withMdc(() -> {
            switch (event) {
                case SUSPENDED, LOST -> {
                    boolean first = !laneSuspended;
                    laneSuspended = true;
                    dropEverything();
                    waiting.clear();
                    if (first) {
                        LOG.warn("member {}: connection {}; partitions dropped without commit", describe(),
                                event.name().toLowerCase());
                    }
                }
                case RECONNECTED, RECONNECTED_NEW_SESSION -> {
                    suspended = false;
                    laneSuspended = false;
                    try {
                        if (!store.isRegistered(config.memberId())) {
                            registration = store.registerMember(memberInfo());
                            LOG.info("member {}: re-registered after {}", describe(), event.name().toLowerCase());
                        }
                    } catch (RuntimeException e) {
                        LOG.warn("member {}: re-registration failed, will retry: {}", describe(), e.toString());
                        scheduler.schedule(() -> lane.execute(() -> onConnection(event)), RETRY_MAX_MS,
                                TimeUnit.MILLISECONDS);
                        return;
                    }
                    reconcile();
                }
                case CONNECTED -> {
                }
            }
        });
    }

    /**
     * Marks the member suspended, drops all ownership and queues onPartitionsLost for what it dropped. Runs on the
     * store's thread as soon as the connection is in doubt, so neither commits nor the user's lost callback wait for a
     * lane that may be stuck in a ZooKeeper retry.
     */
    private void dropEverything() {
        synchronized (lock) {
            suspended = true;
            SortedSet<TopicPartition> lost = new TreeSet<>(owned.keySet());
            owned.forEach((tp, o) -> dropped.put(tp, new Dropped(true, o.lease.session())));
            owned.clear();
            if (!lost.isEmpty()) {
                LOG.warn("member {}: connection in doubt; stopped processing {} without commit", describe(), lost);
                config.metrics().partitionsLost(config.groupId(), config.memberId(), lost.size());
                notifyAsync("onPartitionsLost", () -> config.listener().onPartitionsLost(lost));
            }
        }
    }

    /**
     * Under {@link #lock} (so it is ordered with every lost notification): tells the listener of the partitions of
     * {@code gained} that are still owned.
     */
    private void notifyAssigned(SortedMap<TopicPartition, OptionalLong> gained) {
        synchronized (lock) {
            SortedMap<TopicPartition, OptionalLong> still = new TreeMap<>(gained);
            still.keySet().retainAll(owned.keySet());
            if (!still.isEmpty()) {
                notifyAsync("onPartitionsAssigned", () -> config.listener().onPartitionsAssigned(still));
            }
        }
    }

    /** Queues a listener call on the callback lane; callbacks run one at a time, in the order queued. */
    private void notifyAsync(String name, Runnable call) {
        callbacks.execute(guarded(name, call));
    }

    private Runnable guarded(String name, Runnable call) {
        return () -> withMdc(() -> {
            try {
                call.run();
            } catch (RuntimeException e) {
                LOG.error("member {}: listener {} threw; continuing", describe(), name, e);
            }
        });
    }

    /**
     * Runs a listener call in callback order and waits until it returned (a revocation: release only after user code
     * stopped). With no callback running or queued, the waiting thread runs it itself, as the callback lane: the
     * revocation on every giver's path then costs no hand-over to the callback thread and back.
     */
    private void notifySync(String name, Runnable call) {
        if (callbacks.runIfIdle(guarded(name, call))) {
            return;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        notifyAsync(name, () -> {
            try {
                call.run();
            } finally {
                done.complete(null);
            }
        });
        done.join();
    }

    // ---------------------------------------------------------------- close

    @Override
    public void close() {
        if (callbacks.inLane()) {
            // Called from a listener callback: the leave needs the callback lane for its own revocation callback, so
            // it proceeds on another thread once this callback has returned.
            CompletableFuture.runAsync(this::close, workers);
            return;
        }
        synchronized (this) {
            if (state == State.CLOSED) {
                return;
            }
            boolean wasStarted = state == State.STARTED;
            state = State.CLOSED;
            if (!wasStarted) {
                onClosed.accept(this);
                return;
            }
        }
        coordination.removeConnectionListener(connectionListener);
        try {
            callOnLane(() -> {
                withMdc(this::leaveGracefully);
                return null;
            });
        } catch (RuntimeException e) {
            LOG.warn("member {}: graceful leave incomplete: {}", describe(), e.toString());
        } finally {
            config.metrics().memberClosed(config.groupId(), config.memberId());
            onClosed.accept(this);
        }
        LOG.info("member {} closed", describe());
    }

    private void leaveGracefully() {
        // Again, on the lane: a join still running when close() removed it has added it since.
        coordination.removeConnectionListener(connectionListener);
        rebalancer.deactivate();
        closeElection();
        SortedSet<TopicPartition> all;
        synchronized (lock) {
            all = new TreeSet<>(owned.keySet());
        }
        if (!all.isEmpty() && !suspended) {
            try {
                revokeAndRelease(all);
            } catch (RuntimeException e) {
                LOG.warn("member {}: release on close failed: {}", describe(), e.toString());
            }
        }
        synchronized (lock) {
            owned.clear();
        }
        closeQuietly();
    }

    private void closeElection() {
        if (election != null) {
            try {
                election.close();
            } catch (RuntimeException e) {
                LOG.debug("member {}: election close failed: {}", describe(), e.toString());
            }
            election = null;
        }
    }

    private void closeQuietly() {
        closeElection();
        if (registration != null) {
            try {
                registration.close();
            } catch (RuntimeException e) {
                LOG.debug("member {}: member node removal failed: {}", describe(), e.toString());
            }
            registration = null;
        }
    }

    // ---------------------------------------------------------------- helpers

    private <T> T callOnLane(Supplier<T> task) {
        if (lane.inLane()) {
            return task.get();
        }
        CompletableFuture<T> f = new CompletableFuture<>();
        lane.execute(() -> {
            try {
                f.complete(task.get());
            } catch (RuntimeException e) {
                f.completeExceptionally(e);
            }
        });
        return awaitLane(f, "answer", " (a listener callback blocking?)", () -> { });
    }

    /**
     * Waits for what the lane computes, at most {@link #CLOSE_TIMEOUT_SECONDS}, and rethrows its failure. {@code giveUp}
     * runs when the caller stops waiting (timeout, interrupt) while the lane may still be at work.
     */
    private <T> T awaitLane(CompletableFuture<T> f, String what, String timeoutHint, Runnable giveUp) {
        try {
            return f.get(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            giveUp.run();
            throw new GroupKeeperException("interrupted while waiting for member " + describe() + " to " + what, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new GroupKeeperException("member " + describe() + " failed to " + what, e.getCause());
        } catch (TimeoutException e) {
            giveUp.run();
            throw new GroupKeeperException("member " + describe() + " did not " + what + " within "
                    + CLOSE_TIMEOUT_SECONDS + " s" + timeoutHint, e);
        }
    }

    /** Runs {@code r} with this member in the logging context; restores what was there (a callback run inline). */
    private void withMdc(Runnable r) {
        String group = MDC.get("group");
        String member = MDC.get("member");
        MDC.put("group", config.groupId());
        MDC.put("member", config.memberId());
        try {
            r.run();
        } finally {
            restore("group", group);
            restore("member", member);
        }
    }

    private static void restore(String key, String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }

    private String describe() {
        return config.groupId() + "/" + config.memberId();
    }

    private static String describe(OptionalLong offset) {
        return offset.isPresent() ? String.valueOf(offset.getAsLong()) : "(none)";
    }

    @Override
    public String toString() {
        return "GroupMember[" + describe() + "]";
    }
}
