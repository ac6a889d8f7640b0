package io.groupkeeper.internal;

import io.groupkeeper.CommitResult;
import io.groupkeeper.GroupKeeperException;
import io.groupkeeper.GroupMember;
import io.groupkeeper.SeenOffset;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.log.internal.LogContext;
import io.groupkeeper.spi.ConnectionEvent;
import io.groupkeeper.spi.ConnectionListener;
import io.groupkeeper.spi.CoordinationStore;
import io.groupkeeper.spi.MemberIdInUseException;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.GroupStores;
import io.groupkeeper.spi.internal.LeaderElection;
import io.groupkeeper.spi.internal.LeadershipListener;
import io.groupkeeper.spi.internal.MemberInfo;
import io.groupkeeper.spi.internal.Registration;
import java.time.Clock;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member's lifecycle ({@link MemberState}, held by its {@link MemberLifecycle}: LATENT → JOINING → REGISTERING →
 * JOINED → LEAVING → CLOSED) and connection handling, composed of the pieces that do the
 * work: the {@link PartitionTable} (every partition's state and the transitions allowed), the {@link Reconciler}
 * (follows the target: revoke, release, claim), the {@link OffsetCommitter} (fenced commits, refreshes, external
 * edits), the {@link ListenerInvoker} (user callbacks on their own lane) and, while elected, the {@link Rebalancer}.
 * Protocol steps run on the member's lane, which never waits for a callback; user threads call {@link #commit},
 * {@link #refresh} and the queries.
 *
 * <p>Connection care (I7): the {@link ConnectionTracker} holds the connection's state. On SUSPENDED or LOST every
 * held partition is stopped and reported lost at once, on the store's thread, with no commit, so processing stops
 * before the session can expire; on reconnection the member re-registers if its session was new and follows its
 * target again (stopped partitions are re-confirmed or released). A close is a {@link MemberLeave}, which listens to
 * the connection to its end; the member id is held in the keeper's {@link LiveMemberIds} until that end.
 *
 * <p>About 630 lines: the one class users call from any thread — start with its retries and abandon, commits,
 * refreshes and queries, the connection's care and the close — and each part is short; what they share is the
 * lifecycle and the lane, which is why they stay together. The work itself is in the pieces named above.
 */
public final class DefaultGroupMember implements GroupMember {

    private static final Logger LOG = LoggerFactory.getLogger(DefaultGroupMember.class);
    private static final long CLOSE_TIMEOUT_SECONDS = 60;
    private static final long REGISTRATION_RETRY_MS = 250;

    private final MemberConfig config;
    private final CoordinationStore coordination;
    private final GroupStore store;
    private final Clock clock;
    private final ScheduledExecutorService scheduler;
    private final ExecutorService workers;
    private final SerialExecutor lane;
    private final LogContext log;
    /** The member's state: what its join has done, whether it is leaving; every transition logged. */
    private final MemberLifecycle lifecycle;

    private final PartitionTable table = new PartitionTable();
    private final ListenerInvoker invoker;
    private final OffsetCommitter committer;
    private final Reconciler reconciler;
    private final Rebalancer rebalancer;
    private final Consumer<GroupMember> onClosed;
    private final ConnectionListener connectionListener;
    /** Its transitions to a doubt are made under {@link #table}'s lock, with the stop of every held partition. */
    private final ConnectionTracker connection;

    private final BooleanSupplier sessionEnding;
    private final LiveMemberIds liveIds;
    private final RetryDelays delays;

    // Lane-confined.
    private Registration registration;

    private volatile LeaderElection election;

    /**
     * {@code sessionEnding} says the keeper is closing its store right after its members: a member closed then need
     * not wait for a connection in doubt, since the session's end removes whatever nodes it left.
     */
    public DefaultGroupMember(
            MemberConfig config,
            CoordinationStore coordination,
            Clock clock,
            ExecutorService workers,
            ScheduledExecutorService scheduler,
            Consumer<GroupMember> onClosed,
            BooleanSupplier sessionEnding,
            LiveMemberIds liveIds) {
        this.config = config;
        this.sessionEnding = sessionEnding;
        this.liveIds = liveIds;
        this.coordination = coordination;
        this.store = GroupStores.of(coordination, config.groupId());
        this.clock = clock;
        this.scheduler = scheduler;
        this.workers = workers;
        this.onClosed = onClosed;
        this.log = new LogContext(config.groupId(), config.memberId());
        this.lifecycle = new MemberLifecycle(log);
        this.connection = new ConnectionTracker(clock, log);
        this.delays = RetryDelays.seededBy(config.groupId(), config.memberId(), "member");
        this.lane = new SerialExecutor(workers, "member", log);
        this.invoker = new ListenerInvoker(config.listener(), new SerialExecutor(workers, "callbacks", log));
        this.committer =
                new OffsetCommitter(config, store, table, invoker, log, this::generation, this::scheduleReconcile);
        this.reconciler = new Reconciler(
                config,
                store,
                table,
                invoker,
                committer,
                log,
                lane,
                scheduler,
                () -> lifecycle.isActive() && !connection.inDoubt(),
                coordination::sessionId);
        this.rebalancer =
                new Rebalancer(config, store, clock, new SerialExecutor(workers, "rebalancer", log), scheduler);
        this.connectionListener = event -> {
            // A doubt at once, on the store's thread: commits refused from now (I7).
            long n = event.isConnected() ? connection.heard(event) : log.inContext(() -> stopEverything(event));
            lane.execute(() -> onConnection(event, n));
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
        return reconciler.generation();
    }

    @Override
    public boolean isLeader() {
        LeaderElection e = election;
        return e != null && e.isLeader() && rebalancer.isActive();
    }

    @Override
    public SortedSet<TopicPartition> assignment() {
        return Collections.unmodifiableSortedSet(table.announced());
    }

    @Override
    public OptionalLong fencingToken(TopicPartition partition) {
        return table.fencingToken(partition);
    }

    @Override
    public void start() {
        // A start given up on (timeout, interrupt) is closed once its join is done: never a member nobody holds.
        awaitLane(
                startAsync(),
                "start",
                " (ZooKeeper unreachable?); closing it",
                () -> CompletableFuture.runAsync(this::close, workers));
    }

    /**
     * The join runs on the member's lane; the future completes when it is done. On failure the member is closed (it
     * leaves its keeper's list, and whatever its join may have created is removed: {@link #abandonStart}) before the
     * future completes exceptionally.
     */
    @Override
    public CompletableFuture<Void> startAsync() {
        synchronized (this) {
            MemberState now = lifecycle.state();
            if (now != MemberState.LATENT) {
                throw new IllegalStateException(
                        "member " + log.member() + " already " + (now.isActive() ? "started" : "closed"));
            }
            lifecycle.moveTo(MemberState.JOINING);
        }
        CompletableFuture<Void> started = new CompletableFuture<>();
        long deadline = clock.millis() + config.registrationTimeout().toMillis();
        lane.execute(() -> {
            // Listening from the first attempt: a registration whose reply is lost drops the connection, and the
            // failed start's leave must hear that doubt to wait for its verdict.
            coordination.addConnectionListener(connectionListener);
            attemptJoin(started, deadline);
        });
        return started;
    }

    /**
     * On the lane: one attempt at the join — register, join the leader election, take the first step towards the
     * target. An id still held (a predecessor that crashed or is still closing, see {@link #register}) is tried again
     * a jittered moment later from the scheduler, until the registration timeout: never by sleeping on the lane, whose
     * threads the predecessor's leave may need (a keeper given a single-threaded or small executor, or the simulator's
     * one thread, waited the whole registration timeout for a leave that could not run, then failed).
     */
    private void attemptJoin(CompletableFuture<Void> started, long deadline) {
        if (!lifecycle.isActive()) {
            // Closed while it waited for its id: the close's leave has dealt with it.
            started.completeExceptionally(
                    new GroupKeeperException("member " + log.member() + " was closed before it started"));
            return;
        }
        try {
            registration = register();
        } catch (MemberIdInUseException e) {
            if (clock.millis() < deadline) {
                LOG.info(
                        "id still held (a predecessor that crashed or is closing?); waiting for it to go: {}",
                        e.getMessage());
                try {
                    scheduler.schedule(
                            () -> lane.execute(() -> attemptJoin(started, deadline)),
                            delays.around(REGISTRATION_RETRY_MS),
                            TimeUnit.MILLISECONDS);
                    return;
                } catch (RejectedExecutionException shutDown) {
                    e.addSuppressed(shutDown);
                }
            }
            abandonStart(started, e);
            return;
        } catch (RuntimeException e) {
            abandonStart(started, e);
            return;
        }
        try {
            joinElectionAndStep();
        } catch (RuntimeException e) {
            abandonStart(started, e);
            return;
        }
        // False if a close came meanwhile: the close's leave, queued behind this task, undoes the join.
        lifecycle.advance(MemberState.REGISTERING, MemberState.JOINED);
        config.metrics().memberStarted(config.groupId(), config.memberId(), this::generation, table::ownedCount);
        LOG.info(
                "member {} started (topics {}, assignor {}, store {})",
                log.member(),
                new TreeSet<>(config.topics()),
                config.assignor().name(),
                coordination.describe());
        started.complete(null);
    }

    /**
     * On the lane: a start that failed closes the member. If it held its id in the keeper, the store may have
     * registered the member node although the call failed (a reply lost with the connection: ZooKeeper's client does
     * not retry it, and the store cannot tell); left there, the node would live as long as the keeper's session, and
     * the leader would give partitions to a member nobody runs. So the member leaves as a close does ({@link
     * MemberLeave}: removes its node, waiting for the connection's verdict if it is in doubt), then completes the
     * future exceptionally. An id held by someone else proves nothing was created.
     */
    private void abandonStart(CompletableFuture<Void> started, RuntimeException cause) {
        boolean idTaken;
        synchronized (this) {
            MemberState was = lifecycle.state();
            idTaken = lifecycle.holdsId();
            if (was.isActive()) {
                lifecycle.moveTo(idTaken ? MemberState.LEAVING : MemberState.CLOSED);
            }
        }
        if (!idTaken) {
            coordination.removeConnectionListener(connectionListener);
            closeElection();
            onClosed.accept(this);
            started.completeExceptionally(cause);
            return;
        }
        if (registration == null) {
            registration = () -> store.deregisterMember(config.memberId()); // ours if it exists in this session
        }
        rebalancer.deactivate();
        closeElection();
        new MemberLeave(
                        reconciler,
                        table,
                        connection,
                        coordination.sessionTimeout(),
                        sessionEnding,
                        this::deregister,
                        () -> coordination.isConnected() ? coordination.sessionId() : 0,
                        lane,
                        scheduler,
                        RetryDelays.seededBy(config.groupId(), config.memberId(), "leave"),
                        log)
                .start()
                .whenComplete((ok, e) -> lane.execute(() -> {
                    coordination.removeConnectionListener(connectionListener);
                    table.clear();
                    closeQuietly();
                    liveIds.free(config.groupId(), config.memberId(), this);
                    closed();
                    onClosed.accept(this);
                    started.completeExceptionally(cause);
                }));
    }

    /** On the lane, once registered: joins the leader election and takes the first step towards the target. */
    private void joinElectionAndStep() {
        LeaderElection e = store.election(config.memberId(), new LeadershipListener() {
            @Override
            public void isLeader() {
                rebalancer.activate(election);
            }

            @Override
            public void notLeader() {
                rebalancer.deactivate();
            }
        });
        election = e;
        e.start();
        reconciler.step();
    }

    /**
     * Takes the member's id in its keeper, makes sure the group exists and registers the member node. A static member
     * restarted after a crash finds its instance id still held by its previous process's session until that session
     * expires: this throws {@link MemberIdInUseException}, and {@link #attemptJoin} tries again until the registration
     * timeout instead of failing, as Kafka's static members replace their predecessor. So it does for a member of this
     * keeper with the same id that has not finished leaving ({@link LiveMemberIds}).
     */
    private Registration register() {
        if (!liveIds.take(config.groupId(), config.memberId(), this)) {
            throw new MemberIdInUseException("member id '" + config.memberId() + "' of group '"
                    + config.groupId() + "' is held by another member of this GroupKeeper that has not "
                    + "finished leaving (its close may still be revoking or releasing); one keeper has at most "
                    + "one live member per instance id");
        }
        if (lifecycle.state() == MemberState.REGISTERING) {
            return store.registerMember(memberInfo()); // the group was checked by an earlier attempt
        }
        // False if a close came meanwhile: the join goes on, and the close's leave, queued behind it, undoes it.
        lifecycle.advance(MemberState.JOINING, MemberState.REGISTERING);
        return store.join(config.assignor().name(), memberInfo());
    }

    private MemberInfo memberInfo() {
        return new MemberInfo(
                config.memberId(),
                config.instanceId(),
                config.host(),
                new TreeSet<>(config.topics()),
                clock.instant(),
                config.assignor().name(),
                config.rack());
    }

    // ---------------------------------------------------------------- user-thread API

    @Override
    public CommitResult commit(Map<TopicPartition, Long> offsets) {
        return commit(offsets, Map.of());
    }

    @Override
    public CommitResult commit(Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> logEndOffsets) {
        return log.inContext(() -> committer.commit(offsets, logEndOffsets));
    }

    @Override
    public CommitResult commit(
            Map<TopicPartition, Long> offsets,
            Map<TopicPartition, Long> logEndOffsets,
            Map<TopicPartition, String> metadata) {
        return log.inContext(() -> committer.commit(offsets, logEndOffsets, metadata));
    }

    @Override
    public CommitResult commit(
            Map<TopicPartition, Long> offsets,
            Map<TopicPartition, Long> logEndOffsets,
            Map<TopicPartition, String> metadata,
            Map<TopicPartition, String> done) {
        return log.inContext(() -> committer.commit(offsets, logEndOffsets, metadata, done));
    }

    @Override
    public SortedSet<TopicPartition> commitOnRelease(
            Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> logEndOffsets) {
        return log.inContext(() -> committer.commitOnRelease(offsets, logEndOffsets));
    }

    @Override
    public SortedSet<TopicPartition> commitOnRelease(
            Map<TopicPartition, Long> offsets,
            Map<TopicPartition, Long> logEndOffsets,
            Map<TopicPartition, String> done) {
        return log.inContext(() -> committer.commitOnRelease(offsets, logEndOffsets, done));
    }

    @Override
    public Optional<String> done(TopicPartition partition) {
        return table.done(partition);
    }

    @Override
    public SeenOffset seenOffset(TopicPartition partition) {
        return table.seenOffset(partition);
    }

    @Override
    public CommitResult refresh(Collection<TopicPartition> partitions) {
        return log.inContext(() -> committer.refresh(partitions));
    }

    @Override
    public OptionalLong committed(TopicPartition partition) {
        return store.readOffset(partition, null).offset();
    }

    private void scheduleReconcile() {
        reconciler.scheduleStep();
    }

    // ---------------------------------------------------------------- connection

    /** On the lane: a doubt stops what a claim may have added since; a reconnection resumes and rejoins. */
    private void onConnection(ConnectionEvent event, long n) {
        if (!event.isConnected()) {
            if (lifecycle.isActive()) {
                stopHeld();
            }
            return;
        }
        boolean wasInDoubt;
        synchronized (table) {
            wasInDoubt = connection.inDoubt();
            if (!connection.resume(n, event)) {
                return; // a later event is queued behind this one: it decides
            }
        }
        if (lifecycle.state() != MemberState.JOINED || !(wasInDoubt || event.isReconnection())) {
            return; // closing: the leave follows the connection itself; joining: the join registers
        }
        try {
            if (!store.isRegistered(config.memberId())) {
                registration = store.registerMember(memberInfo());
                LOG.info("re-registered after {}", event.name().toLowerCase());
            }
        } catch (RuntimeException e) {
            long delay = delays.failed();
            LOG.warn("re-registration failed, retrying in {} ms: {}", delay, e.toString());
            scheduler.schedule(() -> lane.execute(() -> onConnection(event, n)), delay, TimeUnit.MILLISECONDS);
            return;
        }
        delays.succeeded();
        reconciler.step();
    }

    /** On the store's thread: the connection is in doubt from now, every held partition stops; returns the event's number. */
    private long stopEverything(ConnectionEvent event) {
        synchronized (table) {
            long n = connection.heard(event);
            stopHeld();
            return n;
        }
    }

    /**
     * Stops every held partition and queues onPartitionsLost for those user code processed, so neither commits nor the
     * user's lost callback wait for a lane that may be stuck in a store retry.
     */
    private void stopHeld() {
        synchronized (table) {
            SortedSet<TopicPartition> lost = table.stopAllHeld();
            if (!lost.isEmpty()) {
                LOG.warn("connection in doubt; stopped processing {} without commit", lost);
                config.metrics().partitionsLost(config.groupId(), config.memberId(), lost.size());
                invoker.lost(lost);
            }
        }
    }

    // ---------------------------------------------------------------- close

    @Override
    public void close() {
        if (invoker.inCallback()) {
            // Called from a listener callback: the leave needs the callback lane for its own revocation callback, so
            // it proceeds once this callback has returned.
            closeAsync();
            return;
        }
        try {
            awaitLane(closeAsync(), "leave", " (a listener callback blocking?)", () -> {});
        } catch (RuntimeException e) {
            LOG.warn("graceful leave incomplete: {}", e.toString());
        }
    }

    /**
     * Graceful leave without waiting: revokes (the listener hands over final offsets), releases every partition this
     * member holds, leaves the group, waiting for the connection's verdict whenever it is in doubt
     * ({@link MemberLeave}); the future completes when that is done. Idempotent.
     */
    @Override
    public CompletableFuture<Void> closeAsync() {
        CompletableFuture<Void> closed = new CompletableFuture<>();
        synchronized (this) {
            MemberState was = lifecycle.state();
            if (!was.isActive() && was != MemberState.LATENT) {
                return CompletableFuture.completedFuture(null);
            }
            if (was == MemberState.LATENT) {
                lifecycle.moveTo(MemberState.CLOSED);
                onClosed.accept(this);
                return CompletableFuture.completedFuture(null);
            }
            lifecycle.moveTo(MemberState.LEAVING);
        }
        lane.execute(() -> {
            rebalancer.deactivate();
            closeElection();
            new MemberLeave(
                            reconciler,
                            table,
                            connection,
                            coordination.sessionTimeout(),
                            sessionEnding,
                            this::deregister,
                            () -> coordination.isConnected() ? coordination.sessionId() : 0,
                            lane,
                            scheduler,
                            RetryDelays.seededBy(config.groupId(), config.memberId(), "leave"),
                            log)
                    .start()
                    .whenComplete((ok, e) -> lane.execute(() -> {
                        coordination.removeConnectionListener(connectionListener); // a join may have added it late
                        table.clear();
                        closeQuietly();
                        liveIds.free(config.groupId(), config.memberId(), this);
                        config.metrics().memberClosed(config.groupId(), config.memberId());
                        closed();
                        onClosed.accept(this);
                        LOG.info("member {} closed", log.member());
                        closed.complete(null);
                    }));
        });
        return closed;
    }

    /** LEAVING → CLOSED, once: the leave of a failed start and a close's leave may both end. */
    private synchronized void closed() {
        if (lifecycle.state() == MemberState.LEAVING) {
            lifecycle.moveTo(MemberState.CLOSED);
        }
    }

    private void closeElection() {
        LeaderElection e = election;
        election = null;
        if (e != null) {
            try {
                e.close();
            } catch (RuntimeException failure) {
                LOG.debug("election close failed: {}", failure.toString());
            }
        }
    }

    private void closeQuietly() {
        closeElection();
        deregister();
    }

    /** On the lane: removes the member node; false if that failed (it may still be there). */
    private boolean deregister() {
        if (registration != null) {
            try {
                registration.close();
            } catch (RuntimeException e) {
                LOG.warn("member node removal failed: {}", e.toString());
                return false;
            }
            registration = null;
        }
        return true;
    }

    // ---------------------------------------------------------------- helpers

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
            throw new GroupKeeperException("interrupted while waiting for member " + log.member() + " to " + what, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new GroupKeeperException("member " + log.member() + " failed to " + what, e.getCause());
        } catch (TimeoutException e) {
            giveUp.run();
            throw new GroupKeeperException(
                    "member " + log.member() + " did not " + what + " within " + CLOSE_TIMEOUT_SECONDS + " s"
                            + timeoutHint,
                    e);
        }
    }

    @Override
    public String toString() {
        return "GroupMember[" + log.member() + "]";
    }
}
