package io.groupkeeper.testkit.sim;

import io.groupkeeper.testkit.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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
 *
 * <p>The tasks of a {@linkplain #carry carried} process run on real threads of their own ({@link SimThreads}), one at a
 * time: one of them may hang in a request a silent cut holds while the others, and the rest of the world, run on.
 */
final class SimScheduler {

    private static final class Task {
        final String tag;
        final long due;
        final Runnable body;
        /** For a task that hands a hanging simulated thread control again: its carrier (else null). */
        SimThreads.Carrier resumes;
        /** Whether it is a store's event (a watch notification, a background answer, a connection state). */
        boolean event;
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
    /** The process each tag belongs to (a tag not listed is a process of its own). */
    private final Map<String, String> processOf = new HashMap<>();
    /** The processes whose tasks run on carriers. */
    private final Set<String> carried = new HashSet<>();
    /** Per process: a carrier hanging with a lock held; the process's other tasks wait for it ({@link SimThreads.Hold}). */
    private final Map<String, SimThreads.Hold> exclusive = new HashMap<>();

    private final SimThreads threads = new SimThreads(this::resume, this::exclusive);

    SimScheduler(ManualClock clock, Random random, Runnable onTimeAdvanced) {
        this.clock = clock;
        this.random = random;
        this.onTimeAdvanced = onTimeAdvanced;
    }

    /** The simulated threads a silent cut's held requests wait on ({@code InMemoryZooKeeper#simulatedThreads}). */
    SimThreads threads() {
        return threads;
    }

    /** {@code tag}'s tasks are threads of {@code process} (a member's user code of its keeper's process). */
    void belongs(String tag, String process) {
        processOf.put(tag, process);
    }

    private String processOf(String tag) {
        return processOf.getOrDefault(tag, tag);
    }

    /** From now on the tasks of {@code process} run on carriers, so that its requests can hang ({@link SimThreads}). */
    void carry(String process) {
        carried.add(processOf(process));
    }

    private void resume(String tag, SimThreads.Carrier c) {
        add(tag, 0, null).resumes = c;
    }

    private void exclusive(String tag, SimThreads.Hold hold) {
        if (hold != null) {
            exclusive.put(processOf(tag), hold);
        } else {
            exclusive.remove(processOf(tag));
        }
    }

    /** Ends the carriers of this world (a run's end). */
    void close() {
        threads.close();
    }

    ScheduledExecutorService executor(String tag) {
        return new View(tag, false);
    }

    /** A view for a store's events ({@code eventExecutor}): as {@link #executor}, its tasks marked as events. */
    ScheduledExecutorService eventExecutor(String tag) {
        return new View(tag, true);
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
            SimThreads.Hold hold = exclusive.isEmpty() ? null : exclusive.get(processOf(t.tag));
            if (hold != null && t.resumes != hold.carrier() && !(hold.viaEvents() && t.event)) {
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
            if (t.resumes != null) {
                runAs(t.tag, () -> threads.handTo(t.resumes));
            } else if (!carried.isEmpty() && carried.contains(processOf(t.tag))) {
                runAs(t.tag, () -> threads.run(t.tag, () -> RoundTrips.run(t.step, t.body)));
            } else {
                runAs(t.tag, () -> RoundTrips.run(t.step, t.body));
            }
        }
        return true;
    }

    /** Drops every task of {@code tag} (a process that died); its threads hanging in requests unwind. */
    void kill(String tag) {
        tasks.removeIf(t -> t.tag.equals(tag));
        threads.abandon(tag::equals);
    }

    private Task add(String tag, long delayMillis, Runnable body) {
        Task t = new Task(tag, clock.millis() + Math.max(0, delayMillis), body);
        tasks.add(t);
        return t;
    }

    /** A process's view: every task it submits carries its tag. */
    private final class View extends AbstractExecutorService implements ScheduledExecutorService {
        private final String tag;
        private final boolean events;

        View(String tag, boolean events) {
            this.tag = tag;
            this.events = events;
        }

        @Override
        public void execute(Runnable command) {
            add(tag, 0, command).event = events;
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            return schedule(
                    () -> {
                        command.run();
                        return null;
                    },
                    delay,
                    unit);
        }

        @Override
        public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
            SimFuture<V> f = new SimFuture<>(callable);
            f.task = add(tag, unit.toMillis(delay), f);
            f.task.event = events;
            return f;
        }

        @Override
        public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
            throw new UnsupportedOperationException("not simulated");
        }

        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(
                Runnable command, long initialDelay, long delay, TimeUnit unit) {
            throw new UnsupportedOperationException("not simulated");
        }

        @Override
        public void shutdown() {}

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
