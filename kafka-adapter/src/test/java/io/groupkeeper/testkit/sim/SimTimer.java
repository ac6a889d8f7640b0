package io.groupkeeper.testkit.sim;

import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A timer thread of a simulated process: a scheduler's view with fixed-delay repetition (which the scheduler's views
 * do not offer), stopped by {@code shutdown} ({@link FlagExecutor}).
 */
final class SimTimer extends FlagExecutor implements ScheduledExecutorService {

    private final ScheduledExecutorService view;

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
        return view.schedule(
                () -> {
                    if (!shutdown) {
                        command.run();
                    }
                },
                delay,
                unit);
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
        return view.schedule(
                () -> {
                    if (!shutdown) {
                        try {
                            command.run();
                        } finally {
                            scheduleWithFixedDelay(command, delay, delay, unit);
                        }
                    }
                },
                initialDelay,
                unit);
    }
}
