package io.groupkeeper.internal;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A deterministic executor and scheduler for unit tests, on one manual clock: nothing runs until the test says so.
 * {@link #runReady} runs every task due now (and those they submit), {@link #advance} moves the clock and runs what
 * falls due on the way. Records every delay asked for, so a test can check a backoff. Single-threaded: the test's.
 */
final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

    private final PriorityQueue<Task> queue =
            new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.order, b.order));
    private final List<Long> delays = new ArrayList<>();
    private long now;
    private long seq;
    private boolean shutdown;

    /** A clock that reads this scheduler's time. */
    Clock clock() {
        return new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return Instant.ofEpochMilli(now);
            }
        };
    }

    long now() {
        return now;
    }

    /** The delays (ms) of every {@code schedule} so far, in order. */
    List<Long> delays() {
        return List.copyOf(delays);
    }

    /** Tasks waiting, due or not. */
    int pending() {
        return queue.size();
    }

    /** Runs every task due now, including those they submit; returns how many ran. */
    int runReady() {
        int ran = 0;
        while (!queue.isEmpty() && queue.peek().at <= now) {
            Task t = queue.poll();
            if (!t.cancelled) {
                t.done = true;
                t.task.run();
                ran++;
            }
        }
        return ran;
    }

    /** Moves the clock by {@code ms}, running every task on its due time on the way. */
    void advance(long ms) {
        long until = now + ms;
        runReady();
        while (!queue.isEmpty() && queue.peek().at <= until) {
            now = Math.max(now, queue.peek().at);
            runReady();
        }
        now = until;
        runReady();
    }

    @Override
    public void execute(Runnable command) {
        enqueue(command, 0);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        long ms = unit.toMillis(delay);
        delays.add(ms);
        return enqueue(command, ms);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return (ScheduledFuture<V>) schedule(
                () -> {
                    try {
                        callable.call();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                delay,
                unit);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        throw new UnsupportedOperationException("not used by the member");
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("not used by the member");
    }

    private Task enqueue(Runnable command, long delayMs) {
        Task t = new Task(command, now + Math.max(0, delayMs), seq++);
        queue.add(t);
        return t;
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> left = new ArrayList<>();
        queue.forEach(t -> left.add(t.task));
        queue.clear();
        return left;
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown && queue.isEmpty();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return isTerminated();
    }

    private final class Task implements ScheduledFuture<Object> {
        final Runnable task;
        final long at;
        final long order;
        boolean cancelled;
        boolean done;

        Task(Runnable task, long at, long order) {
            this.task = task;
            this.at = at;
            this.order = order;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(at - now, TimeUnit.MILLISECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(getDelay(TimeUnit.MILLISECONDS), o.getDelay(TimeUnit.MILLISECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            if (done) {
                return false;
            }
            cancelled = true;
            return true;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return done || cancelled;
        }

        @Override
        public Object get() {
            return null;
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            return null;
        }
    }
}
