package io.groupkeeper.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A {@link ScheduledExecutorService} for deterministic simulation: nothing runs until the test calls {@link #runNext()}
 * on its own thread, and time is a {@link ManualClock} that only this scheduler advances. {@code runNext()} picks one
 * ready task (due time not after now) at random from a seeded {@link Random}, keeping FIFO order within a {@link
 * #lane(String) lane} (a store's event queue, say): only the oldest ready task of each lane is a candidate, while tasks
 * submitted to the scheduler itself are each a candidate. When nothing is ready it moves the clock to the earliest due
 * task. The same seed and the same code give the same interleaving, recorded in {@link #trace()}.
 *
 * <p>Single-threaded by design: code that blocks its task waiting for another task (a {@code Future.get()} on work not
 * yet run, a sleep) stalls the simulation; {@link ScheduledFuture#get()} of a task not yet run fails instead of
 * blocking.
 */
public final class DeterministicScheduler extends AbstractExecutorService implements ScheduledExecutorService {

    private static final String POOL = "pool";

    private final ManualClock clock;
    private final Random random;
    private final List<Task<?>> pending = new ArrayList<>();
    private final List<String> trace = new ArrayList<>();
    private final Map<String, Executor> lanes = new HashMap<>();
    private long nextSeq;
    private boolean shutdown;

    public DeterministicScheduler(ManualClock clock, long seed) {
        this.clock = clock;
        this.random = new Random(seed);
    }

    public ManualClock clock() {
        return clock;
    }

    /** An executor whose tasks run in submission order relative to each other, interleaved with everything else. */
    public synchronized Executor lane(String name) {
        return lanes.computeIfAbsent(name, n -> task -> enqueue(n, Callables.of(task), 0, 0));
    }

    /** What ran, step by step: the clock, the lane and the task's sequence number. */
    public synchronized List<String> trace() {
        return List.copyOf(trace);
    }

    public synchronized int pendingTasks() {
        return (int) pending.stream().filter(t -> !t.isCancelled()).count();
    }

    // ------------------------------------------------------------------ stepping

    /** Runs one task; false when nothing is left to run, however far the clock went. */
    public boolean runNext() {
        Task<?> next;
        synchronized (this) {
            pending.removeIf(Task::isCancelled);
            if (pending.isEmpty()) {
                return false;
            }
            List<Task<?>> candidates = candidates();
            if (candidates.isEmpty()) {
                long earliest = pending.stream().mapToLong(t -> t.dueMillis).min().orElseThrow();
                clock.advanceTo(java.time.Instant.ofEpochMilli(earliest));
                candidates = candidates();
            }
            next = candidates.get(random.nextInt(candidates.size()));
            pending.remove(next);
            trace.add("t=" + (clock.millis() % 1_000_000) + " " + next.lane + " #" + next.seq);
        }
        next.runOnce();
        return true;
    }

    /**
     * Steps until {@code done} holds; fails after {@code maxSteps} steps or when nothing is left to run before that.
     * Returns the number of steps taken.
     */
    public int runUntil(BooleanSupplier done, int maxSteps) {
        int steps = 0;
        while (!done.getAsBoolean()) {
            if (steps >= maxSteps) {
                throw new AssertionError("not done after " + maxSteps + " steps");
            }
            if (!runNext()) {
                throw new AssertionError("nothing left to run after " + steps + " steps, and not done");
            }
            steps++;
        }
        return steps;
    }

    /** Runs every task due within {@code d} from now (and what they schedule within it), then moves the clock there. */
    public void runFor(Duration d) {
        long until = clock.millis() + d.toMillis();
        while (true) {
            synchronized (this) {
                pending.removeIf(Task::isCancelled);
                if (pending.stream().noneMatch(t -> t.dueMillis <= until)) {
                    break;
                }
            }
            runNext();
        }
        clock.advanceTo(java.time.Instant.ofEpochMilli(until));
    }

    /** The ready tasks that may run next, in a deterministic order: each lane's oldest, and every pool task. */
    private List<Task<?>> candidates() {
        long now = clock.millis();
        Map<String, Task<?>> headOfLane = new HashMap<>();
        List<Task<?>> out = new ArrayList<>();
        List<Task<?>> bySeq = new ArrayList<>(pending);
        bySeq.sort(Comparator.comparingLong(t -> t.seq));
        for (Task<?> t : bySeq) {
            if (POOL.equals(t.lane)) {
                if (t.dueMillis <= now) {
                    out.add(t);
                }
            } else if (!headOfLane.containsKey(t.lane)) {
                headOfLane.put(t.lane, t);
                if (t.dueMillis <= now) {
                    out.add(t);
                }
            }
        }
        out.sort(Comparator.comparingLong(t -> t.seq));
        return out;
    }

    // ------------------------------------------------------------------ ScheduledExecutorService

    private synchronized <V> Task<V> enqueue(String lane, Callable<V> body, long delayMillis, long periodMillis) {
        if (shutdown) {
            throw new RejectedExecutionException("scheduler shut down");
        }
        Task<V> t = new Task<>(lane, nextSeq++, clock.millis() + Math.max(0, delayMillis), periodMillis, body);
        pending.add(t);
        return t;
    }

    @Override
    public void execute(Runnable command) {
        enqueue(POOL, Callables.of(command), 0, 0);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return enqueue(POOL, Callables.of(command), unit.toMillis(delay), 0);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return enqueue(POOL, callable, unit.toMillis(delay), 0);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return enqueue(POOL, Callables.of(command), unit.toMillis(initialDelay), Math.max(1, unit.toMillis(period)));
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        return scheduleAtFixedRate(command, initialDelay, delay, unit);
    }

    @Override
    public synchronized void shutdown() {
        shutdown = true;
    }

    @Override
    public synchronized List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> left = new ArrayList<>(pending);
        pending.clear();
        return left;
    }

    @Override
    public synchronized boolean isShutdown() {
        return shutdown;
    }

    @Override
    public synchronized boolean isTerminated() {
        return shutdown && pending.isEmpty();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return isTerminated();
    }

    /** A runnable as a callable of null. */
    private static final class Callables {
        static Callable<Object> of(Runnable r) {
            return () -> {
                r.run();
                return null;
            };
        }
    }

    /** One submitted task; a periodic one is queued again after each run. */
    private final class Task<V> implements ScheduledFuture<V>, Runnable {
        final String lane;
        final long seq;
        final long periodMillis;
        final Callable<V> body;
        long dueMillis;
        private boolean cancelled;
        private boolean done;
        private V result;
        private Throwable failure;

        Task(String lane, long seq, long dueMillis, long periodMillis, Callable<V> body) {
            this.lane = lane;
            this.seq = seq;
            this.dueMillis = dueMillis;
            this.periodMillis = periodMillis;
            this.body = body;
        }

        void runOnce() {
            try {
                V v = body.call();
                synchronized (DeterministicScheduler.this) {
                    if (periodMillis > 0 && !cancelled && !shutdown) {
                        dueMillis = clock.millis() + periodMillis;
                        pending.add(this);
                    } else {
                        result = v;
                        done = true;
                    }
                }
            } catch (Exception e) {
                synchronized (DeterministicScheduler.this) {
                    failure = e;
                    done = true;
                }
            }
        }

        @Override
        public void run() {
            runOnce();
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(dueMillis - clock.millis(), TimeUnit.MILLISECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(getDelay(TimeUnit.MILLISECONDS), o.getDelay(TimeUnit.MILLISECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            synchronized (DeterministicScheduler.this) {
                if (done) {
                    return false;
                }
                cancelled = true;
                done = true;
                return true;
            }
        }

        @Override
        public boolean isCancelled() {
            synchronized (DeterministicScheduler.this) {
                return cancelled;
            }
        }

        @Override
        public boolean isDone() {
            synchronized (DeterministicScheduler.this) {
                return done;
            }
        }

        @Override
        public V get() throws ExecutionException {
            synchronized (DeterministicScheduler.this) {
                if (cancelled) {
                    throw new CancellationException();
                }
                if (!done) {
                    throw new IllegalStateException("task #" + seq + " has not run: step the scheduler instead of "
                            + "waiting on it (the simulation has one thread)");
                }
                if (failure != null) {
                    throw new ExecutionException(failure);
                }
                return result;
            }
        }

        @Override
        public V get(long timeout, TimeUnit unit) throws ExecutionException {
            return get();
        }
    }
}
