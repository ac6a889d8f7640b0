package io.groupkeeper.testkit.sim;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A timer thread of a simulated process: a scheduler's view with fixed-delay repetition (which the scheduler's views
 * do not offer), stopped by {@code shutdown}.
 */
final class SimTimer extends AbstractExecutorService implements ScheduledExecutorService {

    private final ScheduledExecutorService view;
    private volatile boolean shutdown;

    SimTimer(ScheduledExecutorService view) {
        this.view = view;
    }

    @Override
    public void execute(Runnable command) {
        if (!shutdown) {
            view.execute(() -> {
                if (!shutdown) {
                    command.run();
                }
            });
        }
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return view.schedule(() -> {
            if (!shutdown) {
                command.run();
            }
        }, delay, unit);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return view.schedule(callable, delay, unit);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return scheduleWithFixedDelay(command, initialDelay, period, unit);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        return view.schedule(() -> {
            if (!shutdown) {
                try {
                    command.run();
                } finally {
                    scheduleWithFixedDelay(command, delay, delay, unit);
                }
            }
        }, initialDelay, unit);
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return true;
    }
}
