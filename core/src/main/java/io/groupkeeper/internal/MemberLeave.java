package io.groupkeeper.internal;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.log.internal.LogContext;
import java.time.Duration;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member's leave, on its lane: revoke and release everything ({@link Reconciler#leave}), then remove the member
 * node. Whenever the connection is in doubt — when the close begins, or because a release or the removal met the
 * connection's loss — the leave waits for the connection's verdict: back (whichever session: the leave runs again, and
 * releases only what it proves this member's) or the session given up (nothing of the member's is left once the service
 * ends it, unless final offsets are still to be handed over or a partition it still holds was claimed in the store's
 * connected session, a new one the client had before LOST was heard: then it waits for a new session and leaves
 * again). A blip that keeps the session therefore never leaves a ghost member (a member node and owner nodes that
 * live as long as the keeper's session). The wait is bounded: the session timeout counted from when the doubt began
 * (the service has ended the session by then, unless the service itself was down); a leave that ends with nodes that
 * may still be the member's says so in an ERROR naming them.
 */
final class MemberLeave {

    private static final Logger LOG = LoggerFactory.getLogger(MemberLeave.class);
    /** A close in doubt waits this much past the session timeout: the server ends sessions on its ticks. */
    static final long IN_DOUBT_GRACE_MS = 1_000;
    /** Leaves that fail while connected (not for connection reasons) are tried this often. */
    private static final int CONNECTED_ATTEMPTS = 3;

    private final Reconciler reconciler;
    private final PartitionTable table;
    private final ConnectionTracker connection;
    private final Duration sessionTimeout;
    /** The keeper closes its session right after: whatever the member leaves goes with it. */
    private final BooleanSupplier sessionEnding;
    /** Removes the member node; false when that failed (it may still be there). */
    private final BooleanSupplier deregister;
    /** The store's session while it is connected, else 0: a claim may have landed in it before LOST was heard. */
    private final LongSupplier connectedSession;

    private final SerialExecutor lane;
    private final ScheduledExecutorService scheduler;
    private final RetryDelays delays;
    private final LogContext log;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private int connectedFailures;
    private boolean waited;

    MemberLeave(
            Reconciler reconciler,
            PartitionTable table,
            ConnectionTracker connection,
            Duration sessionTimeout,
            BooleanSupplier sessionEnding,
            BooleanSupplier deregister,
            LongSupplier connectedSession,
            SerialExecutor lane,
            ScheduledExecutorService scheduler,
            RetryDelays delays,
            LogContext log) {
        this.reconciler = reconciler;
        this.table = table;
        this.connection = connection;
        this.sessionTimeout = sessionTimeout;
        this.sessionEnding = sessionEnding;
        this.deregister = deregister;
        this.connectedSession = connectedSession;
        this.lane = lane;
        this.scheduler = scheduler;
        this.delays = delays;
        this.log = log;
    }

    /** On the lane: begins the leave; the future completes when it is over (left, or said loudly what may remain). */
    CompletableFuture<Void> start() {
        attempt();
        return done;
    }

    private void attempt() {
        CompletableFuture<Boolean> verdict = connection.verdict();
        if (!verdict.isDone() || !verdict.join()) {
            awaitVerdict();
            return;
        }
        if (waited) {
            waited = false;
            LOG.info("connection back ({}): leaving again", connection);
        }
        reconciler.leave(connection::inDoubt).whenComplete((ok, e) -> lane.execute(this::afterReleases));
    }

    private void afterReleases() {
        boolean deregistered = !connection.inDoubt() && deregister.getAsBoolean();
        SortedSet<TopicPartition> held = stillHeld();
        if (deregistered && held.isEmpty()) {
            done.complete(null);
        } else if (connection.inDoubt()) {
            LOG.info("leave met a connection in doubt ({}): waiting for its verdict", connection);
            awaitVerdict();
        } else if (++connectedFailures < CONNECTED_ATTEMPTS) {
            scheduler.schedule(() -> lane.execute(this::attempt), delays.failed(), TimeUnit.MILLISECONDS);
        } else {
            giveUp("its releases kept failing while connected", deregistered, held);
        }
    }

    private void awaitVerdict() {
        if (sessionEnding.getAsBoolean()) {
            done.complete(null); // the keeper's session ends next, and whatever is left with it
            return;
        }
        CompletableFuture<Boolean> verdict = connection.verdict();
        if (verdict.isDone()) {
            onVerdict(verdict.join());
            return;
        }
        long wait = sessionTimeout.toMillis() + IN_DOUBT_GRACE_MS - connection.doubtMillis();
        if (wait <= 0) {
            giveUp("the connection stayed in doubt past the session timeout", false, stillHeld());
            return;
        }
        whenDecided(
                verdict,
                wait,
                () -> giveUp("the connection stayed in doubt past the session timeout", false, stillHeld()));
    }

    private void onVerdict(boolean back) {
        if (back) {
            waited = true;
            attempt();
        } else if (!finalOffsetsPending().isEmpty() || !heldInConnectedSession().isEmpty()) {
            // The session is given up, but final offsets are still to be handed over, or the client already has a new
            // session in which a claim landed before LOST was heard (that owner node outlives the lost session): in a
            // new session the leave claims those partitions again and releases them with their offsets, or releases
            // what it proves this member's, or learns it is too late.
            LOG.info(
                    "session given up with {} still to hand over (final offsets not written, or claimed in the "
                            + "client's new session): waiting for a new session to hand them over",
                    toHandOver());
            whenDecided(connection.reconnection(), sessionTimeout.toMillis(), () -> {
                LOG.warn("member {} closed without a new session: {} were not handed over", log.member(), toHandOver());
                done.complete(null);
            });
        } else {
            LOG.info("session given up: nothing of this member is left once the service ends it");
            done.complete(null);
        }
    }

    /** On the lane: {@link #onVerdict} once {@code decision} completes; {@code timedOut} if not within {@code ms}. */
    private void whenDecided(CompletableFuture<Boolean> decision, long ms, Runnable timedOut) {
        CompletableFuture<Boolean> decided = new CompletableFuture<>();
        decision.thenAccept(decided::complete);
        ScheduledFuture<?> timeout = scheduler.schedule(
                () -> {
                    decided.complete(null);
                },
                ms,
                TimeUnit.MILLISECONDS);
        decided.thenAccept(back -> lane.execute(() -> {
            timeout.cancel(false);
            if (back == null) {
                timedOut.run();
            } else {
                onVerdict(back);
            }
        }));
    }

    private SortedSet<TopicPartition> toHandOver() {
        SortedSet<TopicPartition> all = finalOffsetsPending();
        all.addAll(heldInConnectedSession());
        return all;
    }

    /**
     * Partitions still held (stopped or revoking) whose claim landed in the store's session of now, a connected one:
     * not the session that was given up, so their owner nodes stay until this member releases them.
     */
    private SortedSet<TopicPartition> heldInConnectedSession() {
        long session = connectedSession.getAsLong();
        SortedSet<TopicPartition> held = new TreeSet<>();
        if (session == 0) {
            return held;
        }
        for (TopicPartition tp : stillHeld()) {
            table.get(tp).filter(e -> e.lease().session() == session).ifPresent(e -> held.add(tp));
        }
        return held;
    }

    private SortedSet<TopicPartition> finalOffsetsPending() {
        SortedSet<TopicPartition> pending = new TreeSet<>();
        table.inState(PartitionState.STOPPED)
                .forEach(tp -> table.get(tp)
                        .filter(e -> PartitionTable.finalOffset(e).isPresent())
                        .ifPresent(e -> pending.add(tp)));
        return pending;
    }

    /**
     * Ends the leave with nodes that may still be the member's: said loudly, naming them, since they live as long as
     * the keeper's session if that session is alive.
     */
    private void giveUp(String why, boolean deregistered, SortedSet<TopicPartition> held) {
        LOG.error(
                "member {} closed, but {}: {}{} may remain until the keeper's session ends, if that session is "
                        + "still alive (the service ends a session after its timeout, unless the service itself was "
                        + "down)",
                log.member(),
                why,
                deregistered ? "" : "its member node, ",
                held.isEmpty() ? "no owner node" : "the owner nodes of " + held);
        done.complete(null);
    }

    private SortedSet<TopicPartition> stillHeld() {
        SortedSet<TopicPartition> held = new TreeSet<>(table.inState(PartitionState.STOPPED));
        held.addAll(table.inState(PartitionState.REVOKING));
        return held;
    }
}
