package io.groupkeeper.testkit.sim;

import io.groupkeeper.testkit.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Every thread of a simulated world in one: tasks submitted through {@link #executor(String)} views, each tagged with
 * the process it belongs to, run one at a time on the calling thread. {@link #runNext} picks a random task among those
 * due (the seeded {@link Random} makes the interleaving a pure function of the seed) and, when none is due, moves the
 * {@link ManualClock} to the next one. A frozen tag's tasks wait, while time passes: a paused process.
 */
final class SimScheduler {

    private static final class Task {
        final String tag;
        final long due;
        final Runnable body;
        /** The round trips that led to its submission: it runs on from there ({@link RoundTrips}). */
        final RoundTrips.Step step = RoundTrips.now();
        volatile boolean cancelled;

        Task(String tag, long due, Runnable body) {
            this.tag = tag;
            this.due = due;
            this.body = body;
        }
    }

    private final ManualClock clock;
    private final Random random;
    private final Runnable onTimeAdvanced;
    private final List<Task> tasks = new ArrayList<>();
    private final Set<String> frozen = new HashSet<>();
    private final List<Task> ready = new ArrayList<>();
    private String running;
    private long steps;

    SimScheduler(ManualClock clock, Random random, Runnable onTimeAdvanced) {
        this.clock = clock;
        this.random = random;
        this.onTimeAdvanced = onTimeAdvanced;
    }

    ScheduledExecutorService executor(String tag) {
        return new View(tag);
    }

    /** The tag of the task running now (null between tasks). */
    String running() {
        return running;
    }

    long steps() {
        return steps;
    }

    Instant now() {
        return clock.instant();
    }

    void freeze(String tag) {
        frozen.add(tag);
    }

    void unfreeze(String tag) {
        frozen.remove(tag);
    }

    boolean isFrozen(String tag) {
        return frozen.contains(tag);
    }

    /** Runs a task on behalf of {@code tag} right now (the simulation's own actions: faults, checks). */
    void runAs(String tag, Runnable action) {
        String was = running;
        running = tag;
        try {
            action.run();
        } finally {
            running = was;
        }
    }

    /**
     * Runs one due task, advancing the clock to the next due one first if needed, but not past {@code until}. Returns
     * false when nothing can run before {@code until} (the clock is then at {@code until}).
     */
    boolean runNext(Instant until) {
        long now = clock.millis();
        ready.clear();
        long next = Long.MAX_VALUE;
        for (Task t : tasks) {
            if (frozen.contains(t.tag)) {
                continue;
            }
            if (t.due <= now) {
                ready.add(t);
            } else {
                next = Math.min(next, t.due);
            }
        }
        if (ready.isEmpty()) {
            long stop = until.toEpochMilli();
            clock.advanceTo(Instant.ofEpochMilli(Math.min(next, stop)));
            onTimeAdvanced.run();
            return next <= stop;
        }
        Task t = ready.get(random.nextInt(ready.size()));
        tasks.remove(t);
        if (!t.cancelled) {
            steps++;
            runAs(t.tag, () -> RoundTrips.run(t.step, t.body));
        }
        return true;
    }

    /** Drops every task of {@code tag} (a process that died). */
    void kill(String tag) {
        tasks.removeIf(t -> t.tag.equals(tag));
    }

    private Task add(String tag, long delayMillis, Runnable body) {
        Task t = new Task(tag, clock.millis() + Math.max(0, delayMillis), body);
        tasks.add(t);
        return t;
    }

    /** A process's view: every task it submits carries its tag. */
    private final class View extends AbstractExecutorService implements ScheduledExecutorService {
        private final String tag;

        View(String tag) {
            this.tag = tag;
        }

        @Override
        public void execute(Runnable command) {
            add(tag, 0, command);
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            return schedule(() -> {
                command.run();
                return null;
            }, delay, unit);
        }

        @Override
        public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
            SimFuture<V> f = new SimFuture<>(callable);
            f.task = add(tag, unit.toMillis(delay), f);
            return f;
        }

        @Override
        public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
            throw new UnsupportedOperationException("not simulated");
        }

        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
            throw new UnsupportedOperationException("not simulated");
        }

        @Override
        public void shutdown() {
        }

        @Override
        public List<Runnable> shutdownNow() {
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return false;
        }

        @Override
        public boolean isTerminated() {
            return false;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }
    }

    private final class SimFuture<V> extends FutureTask<V> implements ScheduledFuture<V> {
        Task task;

        SimFuture(Callable<V> callable) {
            super(callable);
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(Duration.ofMillis(task.due - clock.millis()));
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(getDelay(TimeUnit.MILLISECONDS), o.getDelay(TimeUnit.MILLISECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            task.cancelled = true;
            return super.cancel(mayInterruptIfRunning);
        }
    }
}
