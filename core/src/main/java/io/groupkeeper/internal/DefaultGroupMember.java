package io.groupkeeper.internal;

import io.groupkeeper.CommitResult;
import io.groupkeeper.GroupKeeperException;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.ConnectionEvent;
import io.groupkeeper.spi.ConnectionListener;
import io.groupkeeper.spi.CoordinationStore;
import io.groupkeeper.spi.GroupStore;
import io.groupkeeper.spi.LeaderElection;
import io.groupkeeper.spi.LeadershipListener;
import io.groupkeeper.spi.MemberIdInUseException;
import io.groupkeeper.spi.MemberInfo;
import io.groupkeeper.spi.Registration;
import java.time.Clock;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member's lifecycle (LATENT → STARTED → CLOSED) and connection handling, composed of the pieces that do the
 * work: the {@link PartitionTable} (every partition's state and the transitions allowed), the {@link Reconciler}
 * (follows the target: revoke, release, claim), the {@link OffsetCommitter} (fenced commits, refreshes, external
 * edits), the {@link ListenerInvoker} (user callbacks on their own lane) and, while elected, the {@link Rebalancer}.
 * Protocol steps run on the member's lane, which never waits for a callback; user threads call {@link #commit},
 * {@link #refresh} and the queries.
 *
 * <p>Connection care (I7): on SUSPENDED or LOST every held partition is stopped and reported lost at once, on the
 * store's thread, with no commit, so processing stops before the session can expire; on reconnection the member
 * re-registers if its session was new and follows its target again (stopped partitions are re-confirmed or released).
 */
public final class DefaultGroupMember implements GroupMember {

    private static final Logger LOG = LoggerFactory.getLogger(DefaultGroupMember.class);
    private static final long CLOSE_TIMEOUT_SECONDS = 60;
    /** A close in doubt waits this much past the session timeout: the server ends sessions on its ticks. */
    private static final long IN_DOUBT_GRACE_MS = 1_000;
    private static final long REGISTRATION_RETRY_MS = 250;

    private enum State { LATENT, STARTED, CLOSED }

    private final MemberConfig config;
    private final CoordinationStore coordination;
    private final GroupStore store;
    private final Clock clock;
    private final ScheduledExecutorService scheduler;
    private final ExecutorService workers;
    private final SerialExecutor lane;
    private final MemberLog log;
    private final PartitionTable table = new PartitionTable();
    private final ListenerInvoker invoker;
    private final OffsetCommitter committer;
    private final Reconciler reconciler;
    private final Rebalancer rebalancer;
    private final Consumer<GroupMember> onClosed;
    private final ConnectionListener connectionListener;
    /** Counts connection events; a reconnection clears {@link #suspended} only if no later event came meanwhile. */
    private final AtomicLong connectionEvents = new AtomicLong();

    // Lane-confined.
    private Registration registration;
    /** The lane's own view of suspension, for logging the first suspension once. */
    private boolean laneSuspended;

    private volatile LeaderElection election;
    /** The connection is in doubt: nothing is processed until a reconnection. Written under {@link #table}'s lock. */
    private volatile boolean suspended;
    /** LOST heard since the last connection: the session was given up (read by a close in doubt). */
    private volatile boolean sessionGivenUp;
    /** When the member last became suspended ({@link #clock}'s millis). */
    private volatile long suspendedSince;
    private final BooleanSupplier sessionEnding;
    private volatile State state = State.LATENT;

    /**
     * {@code sessionEnding} says the keeper is closing its store right after its members: a member closed then need
     * not wait for a connection in doubt, since the session's end removes whatever nodes it left.
     */
    public DefaultGroupMember(MemberConfig config, CoordinationStore coordination, Clock clock,
                              ExecutorService workers, ScheduledExecutorService scheduler,
                              Consumer<GroupMember> onClosed, BooleanSupplier sessionEnding) {
        this.config = config;
        this.sessionEnding = sessionEnding;
        this.coordination = coordination;
        this.store = coordination.group(config.groupId());
        this.clock = clock;
        this.scheduler = scheduler;
        this.workers = workers;
        this.onClosed = onClosed;
        this.log = new MemberLog(config.groupId(), config.memberId());
        this.lane = new SerialExecutor(workers, "member", log);
        this.invoker = new ListenerInvoker(config.listener(), new SerialExecutor(workers, "callbacks", log));
        this.committer = new OffsetCommitter(config, store, table, invoker, log, this::generation,
                this::scheduleReconcile);
        this.reconciler = new Reconciler(config, store, table, invoker, committer, log, lane, scheduler,
                () -> state == State.STARTED && !suspended, coordination::sessionId);
        this.rebalancer = new Rebalancer(config, store, clock, new SerialExecutor(workers, "rebalancer", log),
                scheduler);
        this.connectionListener = event -> {
            if (event == ConnectionEvent.LOST) {
                sessionGivenUp = true;
            } else if (event.isConnected()) {
                sessionGivenUp = false;
            }
            long seq = connectionEvents.incrementAndGet();
            if (!event.isConnected()) {
                log.withMdc(this::stopEverything); // at once, on the store's thread: commits refused from now (I7)
            }
            lane.execute(() -> onConnection(event, seq));
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
                throw new IllegalStateException("member " + log.member() + " already " + state.name().toLowerCase());
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
            config.metrics().memberStarted(config.groupId(), config.memberId(), this::generation, table::ownedCount);
            LOG.info("member {} started (topics {}, assignor {}, store {})", log.member(),
                    new TreeSet<>(config.topics()), config.assignor().name(), coordination.describe());
            started.complete(null);
        });
        return started;
    }

    /** On the lane: registers, joins the leader election and takes the first step towards the target. */
    private void join() {
        registration = registerWaitingForPredecessor();
        coordination.addConnectionListener(connectionListener);
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
                LOG.info("id still held by another session (a predecessor that crashed?); waiting for it "
                        + "to expire");
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
        return log.inContext(() -> committer.commit(offsets, logEndOffsets));
    }

    @Override
    public SortedSet<TopicPartition> commitOnRelease(Map<TopicPartition, Long> offsets,
                                                     Map<TopicPartition, Long> logEndOffsets) {
        return log.inContext(() -> committer.commitOnRelease(offsets, logEndOffsets));
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

    private void onConnection(ConnectionEvent event, long seq) {
        if (state != State.STARTED) {
            return;
        }
        switch (event) {
            case SUSPENDED, LOST -> {
                boolean first = !laneSuspended;
                laneSuspended = true;
                stopEverything();
                if (first) {
                    LOG.warn("connection {}; partitions stopped without commit", event.name().toLowerCase());
                }
            }
            case RECONNECTED, RECONNECTED_NEW_SESSION -> {
                synchronized (table) {
                    if (connectionEvents.get() != seq) {
                        return; // a later event is queued behind this one: it decides
                    }
                    suspended = false;
                }
                laneSuspended = false;
                try {
                    if (!store.isRegistered(config.memberId())) {
                        registration = store.registerMember(memberInfo());
                        LOG.info("re-registered after {}", event.name().toLowerCase());
                    }
                } catch (RuntimeException e) {
                    LOG.warn("re-registration failed, will retry: {}", e.toString());
                    scheduler.schedule(() -> lane.execute(() -> onConnection(event, seq)), Backoff.MAX_MS,
                            TimeUnit.MILLISECONDS);
                    return;
                }
                reconciler.step();
            }
            case CONNECTED -> {
            }
        }
    }

    /**
     * Marks the member suspended, stops every held partition and queues onPartitionsLost for those it processed. Runs
     * on the store's thread as soon as the connection is in doubt, so neither commits nor the user's lost callback wait
     * for a lane that may be stuck in a store retry.
     */
    private void stopEverything() {
        synchronized (table) {
            if (!suspended) {
                suspendedSince = clock.millis();
            }
            suspended = true;
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
            awaitLane(closeAsync(), "leave", " (a listener callback blocking?)", () -> { });
        } catch (RuntimeException e) {
            LOG.warn("graceful leave incomplete: {}", e.toString());
        }
    }

    /**
     * Graceful leave without waiting: revokes (the listener hands over final offsets), releases every partition this
     * member holds, leaves the group; the future completes when that is done. Idempotent.
     */
    @Override
    public CompletableFuture<Void> closeAsync() {
        CompletableFuture<Void> closed = new CompletableFuture<>();
        synchronized (this) {
            if (state == State.CLOSED) {
                return CompletableFuture.completedFuture(null);
            }
            boolean wasStarted = state == State.STARTED;
            state = State.CLOSED;
            if (!wasStarted) {
                onClosed.accept(this);
                return CompletableFuture.completedFuture(null);
            }
        }
        coordination.removeConnectionListener(connectionListener);
        lane.execute(() -> {
            // Again, on the lane: a join still running when close() removed it has added it since.
            coordination.removeConnectionListener(connectionListener);
            rebalancer.deactivate();
            closeElection();
            CompletableFuture<Void> left = !suspended ? reconciler.leave()
                    : sessionEnding.getAsBoolean() ? CompletableFuture.completedFuture(null) : leaveOnceConnected();
            left.whenComplete((ok, e) -> lane.execute(() -> {
                table.clear();
                closeQuietly();
                config.metrics().memberClosed(config.groupId(), config.memberId());
                onClosed.accept(this);
                LOG.info("member {} closed", log.member());
                closed.complete(null);
            }));
        });
        return closed;
    }

    /**
     * A close while the connection is in doubt: the owner nodes of the stopped partitions and the member node may be
     * ours still, and stay so if the connection comes back in this session (a blip) - the partitions would then wait
     * for this keeper's session to end. So the leave waits for the connection's verdict: back (the usual leave, which
     * releases only what is proven ours) or the session over (nothing of ours is left): given up (LOST), or the
     * connection gone for longer than the session timeout, after which the service has ended the session.
     */
    private CompletableFuture<Void> leaveOnceConnected() {
        CompletableFuture<Boolean> back = new CompletableFuture<>();
        ConnectionListener verdict = event -> {
            if (event.isConnected()) {
                back.complete(true);
            } else if (event == ConnectionEvent.LOST) {
                back.complete(false);
            }
        };
        coordination.addConnectionListener(verdict);
        long wait = coordination.sessionTimeout().toMillis() + IN_DOUBT_GRACE_MS - (clock.millis() - suspendedSince);
        if (coordination.isConnected()) {
            back.complete(true); // the usual leave proves what it releases, whichever session this is
        } else if (sessionGivenUp || wait <= 0) {
            back.complete(false); // the session was given up, or is over by now
        }
        ScheduledFuture<?> giveUp = scheduler.schedule(() -> back.complete(false), Math.max(0, wait),
                TimeUnit.MILLISECONDS);
        CompletableFuture<Void> left = new CompletableFuture<>();
        back.whenComplete((connected, e) -> {
            coordination.removeConnectionListener(verdict);
            giveUp.cancel(false);
            if (Boolean.TRUE.equals(connected)) {
                lane.execute(() -> {
                    LOG.info("connection back: leaving as usual");
                    reconciler.leave().whenComplete((ok, failure) -> left.complete(null));
                });
            } else {
                left.complete(null);
            }
        });
        return left;
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
        if (registration != null) {
            try {
                registration.close();
            } catch (RuntimeException e) {
                LOG.debug("member node removal failed: {}", e.toString());
            }
            registration = null;
        }
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
            throw new GroupKeeperException("member " + log.member() + " did not " + what + " within "
                    + CLOSE_TIMEOUT_SECONDS + " s" + timeoutHint, e);
        }
    }

    @Override
    public String toString() {
        return "GroupMember[" + log.member() + "]";
    }
}
