package io.groupkeeper.internal;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.log.internal.LogContext;
import io.groupkeeper.spi.internal.ClaimResult;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.TargetAssignment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves the member's {@link PartitionTable} towards its target, on the member's lane. One step: read the own target
 * (re-arming its watch); revoke what is owned but no longer targeted (the listener first, so user code stops and hands
 * over final offsets; the step goes on when it returned, without the lane waiting for it); release those and every
 * stopped partition no longer targeted, or holding a final offset, that this member still holds; claim what is
 * targeted but not owned. A partition still held by its previous owner is claimed when that owner's node goes (the
 * store's hook runs {@link #claimWaiting}). So a partition is never processed by two members (I1), partitions that do
 * not move are never touched (I5), and a failure on one partition (a corrupt node, a refused release) leaves the
 * others to go on.
 *
 * <p>The releases themselves are {@link Releases}'; the step, its claims and the leave share the lane-confined target,
 * generation and backoff here.
 */
final class Reconciler {

    private static final Logger LOG = LoggerFactory.getLogger(Reconciler.class);
    private static final int PARALLEL_CLAIMS = 16;
    private static final int LEAVE_RETRIES = 5;

    private final MemberConfig config;
    private final GroupStore store;
    private final PartitionTable table;
    private final ListenerInvoker invoker;
    private final OffsetCommitter committer;
    private final LogContext log;
    private final SerialExecutor lane;
    private final ScheduledExecutorService scheduler;
    /** Whether steps may run: started, not closing, connection not in doubt. */
    private final BooleanSupplier running;

    private final LongSupplier session;

    private final RetryDelays backoff;
    private final Releases releases;
    private final Map<TopicPartition, String> reportedProblems = new HashMap<>();
    /** A claimWaiting is queued on the lane; set from watch threads, so atomic (one hop instead of two). */
    private final AtomicBoolean claimPending = new AtomicBoolean();
    // Lane-confined.
    private SortedSet<TopicPartition> wanted = Collections.emptySortedSet();
    private boolean stepPending;
    private volatile long generation;

    Reconciler(
            MemberConfig config,
            GroupStore store,
            PartitionTable table,
            ListenerInvoker invoker,
            OffsetCommitter committer,
            LogContext log,
            SerialExecutor lane,
            ScheduledExecutorService scheduler,
            BooleanSupplier running,
            LongSupplier session) {
        this.config = config;
        this.store = store;
        this.table = table;
        this.invoker = invoker;
        this.committer = committer;
        this.log = log;
        this.lane = lane;
        this.scheduler = scheduler;
        this.backoff = RetryDelays.seededBy(config.groupId(), config.memberId());
        this.releases =
                new Releases(config, store, table, log, this::generation, session, () -> retryLater(backoff.failed()));
        this.running = running;
        this.session = session;
    }

    long generation() {
        return generation;
    }

    /** Queues one step (steps requested while one is queued coalesce). */
    void scheduleStep() {
        lane.execute(() -> {
            if (!stepPending) {
                stepPending = true;
                lane.execute(this::step);
            }
        });
    }

    /** On the lane: one step now. */
    void step() {
        stepPending = false;
        if (!running.getAsBoolean()) {
            return;
        }
        try {
            stepOnce();
            backoff.succeeded();
        } catch (RuntimeException e) {
            long delay = backoff.failed();
            LOG.warn("rebalance step failed, retrying in {} ms: {}", delay, e.toString());
            retryLater(delay);
        }
    }

    private void retryLater(long delayMs) {
        scheduler.schedule(this::scheduleStep, delayMs, TimeUnit.MILLISECONDS);
    }

    private void stepOnce() {
        long started = System.nanoTime();
        Optional<TargetAssignment> target = store.readTarget(config.memberId(), this::scheduleStep);
        SortedSet<TopicPartition> next =
                target.map(TargetAssignment::partitions).orElse(Collections.emptySortedSet());
        long newGeneration = target.map(TargetAssignment::generation).orElse(0L);
        boolean newTarget = newGeneration != generation;
        generation = newGeneration;
        wanted = next;
        table.unwantWaiting(next);
        reportedProblems.keySet().retainAll(next);

        SortedSet<TopicPartition> revoke = table.beginRevocation(table.unwanted(PartitionState.OWNED, next));
        SortedSet<TopicPartition> stale = table.unwanted(PartitionState.STOPPED, next);
        // A final offset handed over by a revocation the connection's doubt cut short goes with a release even if the
        // partition is wanted again: re-confirmed, it would be dropped and user code would start from the stored offset
        // (at the log end when none: records skipped). Released here, it is claimed again below, from that offset.
        stale.addAll(table.stoppedWithFinalOffset());
        // User code that was told a stopped partition is assigned gets a revocation too, to confirm it let go (the
        // Kafka adapter waits for its polling thread) before the next owner may start (I1).
        SortedSet<TopicPartition> confirm = new TreeSet<>(revoke);
        stale.stream()
                .filter(tp -> table.get(tp).map(PartitionTable.Entry::known).orElse(false))
                .forEach(confirm::add);
        // A stopped partition's loss callback may still be queued (a process frozen or slow right after a blip in the
        // same session): its user code must have been told before the release lets the next owner start (I1).
        CompletableFuture<Void> revoked =
                !confirm.isEmpty() ? invoker.revoked(confirm) : !stale.isEmpty() ? invoker.afterQueued() : null;
        if (revoked == null) {
            finishStep(revoke, stale, started, newTarget);
            return;
        }
        confirm.forEach(tp -> table.markKnown(tp, false));
        if (revoked.isDone()) {
            finishStep(revoke, stale, started, newTarget);
        } else {
            revoked.whenComplete((ok, e) -> lane.execute(() -> {
                try {
                    finishStep(revoke, stale, started, newTarget);
                } catch (RuntimeException failure) {
                    long delay = backoff.failed();
                    LOG.warn(
                            "rebalance step failed after the revocation, retrying in {} ms: {}",
                            delay,
                            failure.toString());
                    retryLater(delay);
                }
            }));
        }
    }

    /** After the revocation callback returned: release, then claim. */
    private void finishStep(
            SortedSet<TopicPartition> revoke, SortedSet<TopicPartition> stale, long started, boolean newTarget) {
        SortedSet<TopicPartition> stopped = new TreeSet<>(stale);
        if (running.getAsBoolean()) {
            // Revoked ones that a commit in the callback stopped (their offset node found corrupt): the callback has
            // returned, so user code let them go; no later step would see them, the target does not change again.
            stopped.addAll(table.inState(PartitionState.STOPPED).stream()
                    .filter(revoke::contains)
                    .toList());
        }
        int released = releases.releaseRevoked(revoke);
        releases.releaseStopped(stopped);
        if (!running.getAsBoolean()) {
            return;
        }
        wanted.forEach(table::want);
        SortedMap<TopicPartition, OptionalLong> gained = claim(table.claimable(wanted));
        if (newTarget || !revoke.isEmpty() || !gained.isEmpty()) {
            config.metrics()
                    .rebalanced(
                            config.groupId(),
                            config.memberId(),
                            generation,
                            gained.size(),
                            released,
                            System.nanoTime() - started);
            LOG.info(
                    "generation {}: gained {}, revoked {}, waiting for {}, owns {} partitions, took {} ms",
                    generation,
                    gained.keySet(),
                    revoke,
                    table.inState(PartitionState.WAITING),
                    table.ownedCount(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        }
    }

    // ------------------------------------------------------------------ claims

    private void scheduleClaimWaiting() {
        if (claimPending.compareAndSet(false, true)) {
            lane.execute(this::claimWaiting);
        }
    }

    /** A partition this member waits for may have been released or repaired: claim without re-reading the target. */
    private void claimWaiting() {
        claimPending.set(false);
        if (!running.getAsBoolean()) {
            return;
        }
        SortedSet<TopicPartition> candidates = table.claimable(wanted);
        if (candidates.isEmpty()) {
            return;
        }
        long started = System.nanoTime();
        try {
            SortedMap<TopicPartition, OptionalLong> gained = claim(candidates);
            if (!gained.isEmpty()) {
                config.metrics()
                        .rebalanced(
                                config.groupId(),
                                config.memberId(),
                                generation,
                                gained.size(),
                                0,
                                System.nanoTime() - started);
                LOG.info(
                        "generation {}: gained {} (released by their previous owners), waiting for {}, "
                                + "owns {} partitions",
                        generation,
                        gained.keySet(),
                        table.inState(PartitionState.WAITING),
                        table.ownedCount());
            }
        } catch (RuntimeException e) {
            LOG.warn("claim failed, retrying with a full step: {}", e.toString());
            retryLater(backoff.around(RetryDelays.MIN_MS));
        }
    }

    /**
     * Claims each candidate. One still held by its previous owner (or blocked by a corrupt node) waits; the store wakes
     * {@link #claimWaiting} when that changes. A stopped candidate that the store shows held by someone else is
     * forgotten (waiting again); one whose claim failed stays or becomes stopped: its claim may have landed.
     */
    private SortedMap<TopicPartition, OptionalLong> claim(SortedSet<TopicPartition> candidates) {
        List<TopicPartition> todo = new ArrayList<>(candidates);
        SortedMap<TopicPartition, OptionalLong> gained = new TreeMap<>();
        // Claims are independent round trips: a batch goes out together, so taking over k partitions costs about one
        // claim's latency rather than k of them.
        for (int from = 0; from < todo.size() && running.getAsBoolean(); from += PARALLEL_CLAIMS) {
            List<TopicPartition> batch = todo.subList(from, Math.min(todo.size(), from + PARALLEL_CLAIMS));
            long claimSession = session.getAsLong();
            Map<TopicPartition, ClaimResult> results = claimAll(batch);
            for (TopicPartition tp : batch) {
                ClaimResult result = results.get(tp);
                if (result == null) {
                    table.stop(tp, claimSession); // failed: it may have landed
                } else if (result instanceof ClaimResult.Claimed claimed) {
                    // Checked and owned under the table's lock, which the member takes to mark itself suspended and
                    // stop every held partition: a claim cannot become OWNED just after that stop passed it by.
                    synchronized (table) {
                        if (!running.getAsBoolean()) {
                            // The connection dropped meanwhile: the owner node may be ours (same session after a blip).
                            table.stop(tp, claimed.lease().session());
                            continue;
                        }
                        table.own(tp, claimed.offset(), claimed.lease());
                    }
                    reportedProblems.remove(tp);
                    gained.put(tp, claimed.offset().offset());
                } else if (result instanceof ClaimResult.Busy) {
                    table.get(tp)
                            .filter(e -> e.state() == PartitionState.STOPPED)
                            .ifPresent(e -> table.forget(tp, e, PartitionTable.Proof.NOT_HELD, true));
                } else if (result instanceof ClaimResult.Blocked blocked) {
                    if (!blocked.problem().equals(reportedProblems.put(tp, blocked.problem()))) {
                        LOG.error(
                                "cannot take {}: {}. Fix or delete the node; other partitions are " + "unaffected.",
                                tp,
                                blocked.problem());
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
     * Claims {@code batch} together ({@link GroupStore#claimAll}: the ZooKeeper store pipelines the claims on its
     * connection, with no thread of ours per claim). A claim that failed (store trouble) is left out of the result,
     * and a retry is scheduled.
     */
    private Map<TopicPartition, ClaimResult> claimAll(List<TopicPartition> batch) {
        Map<TopicPartition, CompletableFuture<ClaimResult>> claims =
                store.claimAll(batch, config.memberId(), generation, this::scheduleClaimWaiting);
        Map<TopicPartition, ClaimResult> results = new HashMap<>();
        boolean failed = false;
        for (TopicPartition tp : batch) {
            CompletableFuture<ClaimResult> claim = claims.get(tp);
            try {
                if (claim == null) {
                    throw new ExecutionException(new IllegalStateException("the store returned no claim of " + tp));
                }
                results.put(tp, claim.get());
            } catch (ExecutionException e) {
                failed = true;
                LOG.warn("claim of {} failed, retrying: {}", tp, e.getCause().toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failed = true;
            }
        }
        if (failed) {
            scheduler.schedule(this::scheduleClaimWaiting, backoff.current(), TimeUnit.MILLISECONDS);
        }
        return results;
    }

    /** Tells user code of the partitions of {@code gained} that are still owned, in order with every lost one. */
    private void notifyAssigned(SortedMap<TopicPartition, OptionalLong> gained) {
        synchronized (table) {
            SortedMap<TopicPartition, OptionalLong> still = new TreeMap<>(gained);
            still.keySet().retainAll(table.owned());
            if (!still.isEmpty()) {
                Map<TopicPartition, PartitionTable.Entry> claims = new TreeMap<>();
                still.keySet().forEach(tp -> {
                    table.markKnown(tp, true);
                    table.owned(tp).ifPresent(e -> claims.put(tp, e));
                });
                invoker.assigned(still, () -> claims.forEach(table::announce));
            }
        }
    }

    void onOffsetNodeChanged(TopicPartition tp) {
        if (!running.getAsBoolean() || table.owned(tp).isEmpty()) {
            return;
        }
        try {
            if (!committer.checkExternalEdit(tp, () -> lane.execute(() -> onOffsetNodeChanged(tp)))) {
                scheduler.schedule(
                        () -> lane.execute(() -> onOffsetNodeChanged(tp)),
                        backoff.around(RetryDelays.MIN_MS),
                        TimeUnit.MILLISECONDS);
            }
        } catch (RuntimeException e) {
            LOG.debug("could not re-read offset of {}: {}", tp, e.toString());
            scheduler.schedule(
                    () -> lane.execute(() -> onOffsetNodeChanged(tp)),
                    backoff.around(RetryDelays.MAX_MS),
                    TimeUnit.MILLISECONDS);
        }
    }

    /**
     * A leave whose releases failed tries those partitions again a few times, with backoff, before the member goes:
     * their final offsets go with them, and a successor would otherwise start before them. Not while the connection is
     * in doubt ({@code inDoubt}): the caller ({@link MemberLeave}) then waits for the connection's verdict instead.
     */
    private void finishLeave(CompletableFuture<Void> done, int attemptsLeft, BooleanSupplier inDoubt) {
        SortedSet<TopicPartition> still = table.inState(PartitionState.STOPPED);
        if (still.isEmpty() || attemptsLeft == 0 || inDoubt.getAsBoolean()) {
            done.complete(null);
            return;
        }
        scheduler.schedule(
                () -> lane.execute(() -> {
                    try {
                        releases.releaseStopped(still);
                    } catch (RuntimeException e) {
                        LOG.warn("release on close failed: {}", e.toString());
                    }
                    finishLeave(done, attemptsLeft - 1, inDoubt);
                }),
                backoff.failed(),
                TimeUnit.MILLISECONDS);
    }

    /**
     * On close, on the lane: revokes every owned partition (the future completes when the callback returned), then
     * releases those, the ones a step was still revoking, and every stopped partition still held. Called again by a
     * leave that met the connection's loss: it then releases what is still stopped.
     */
    CompletableFuture<Void> leave(BooleanSupplier inDoubt) {
        // A step's revocation whose callback is still queued or running: its own release would come after the close
        // cleared the table, and its owner nodes would outlive the member. Released here, after that callback.
        SortedSet<TopicPartition> inFlight = table.inState(PartitionState.REVOKING);
        SortedSet<TopicPartition> revoke = table.beginRevocation(table.owned());
        SortedSet<TopicPartition> stale = table.inState(PartitionState.STOPPED);
        wanted = Collections.emptySortedSet();
        if (revoke.isEmpty() && stale.isEmpty() && inFlight.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        SortedSet<TopicPartition> revoked = new TreeSet<>(inFlight);
        revoked.addAll(revoke);
        CompletableFuture<Void> done = new CompletableFuture<>();
        Runnable release = () -> {
            try {
                releases.releaseRevoked(revoked); // those the step's own finish released meanwhile are skipped
                releases.releaseStopped(table.inState(PartitionState.STOPPED));
            } catch (RuntimeException e) {
                LOG.warn("release on close failed: {}", e.toString());
            }
            finishLeave(done, LEAVE_RETRIES, inDoubt);
        };
        // Callbacks run in order: once the leave's revocation (or, with nothing to revoke, a marker) has returned,
        // so has every callback queued before it.
        CompletableFuture<Void> callbacks = !revoke.isEmpty()
                ? invoker.revoked(revoke)
                : !inFlight.isEmpty() ? invoker.afterQueued() : CompletableFuture.completedFuture(null);
        if (callbacks.isDone()) {
            release.run();
        } else {
            callbacks.whenComplete((ok, e) -> lane.execute(release));
        }
        return done;
    }
}
