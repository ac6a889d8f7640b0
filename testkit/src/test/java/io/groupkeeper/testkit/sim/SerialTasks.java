package io.groupkeeper.testkit.sim;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One thread of a simulated process (the offset mirror's): its tasks run in the order submitted, each a task of its
 * own for the {@link SimScheduler} (which picks among a tag's due tasks at random), so the rest of the world
 * interleaves with them. Each task starts {@code latency} milliseconds after the one before it returned (or was
 * submitted): the time the thread spent in a call to a slow server, which the model of that server decides (seeded).
 * Killing the tag kills the thread.
 */
final class SerialTasks implements Executor {

    private final ScheduledExecutorService tag;
    private final LongSupplier latency;
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    private boolean queued;

    SerialTasks(ScheduledExecutorService tag, LongSupplier latency) {
        this.tag = tag;
        this.latency = latency;
    }

    @Override
    public void execute(Runnable task) {
        queue.add(task);
        if (!queued) {
            queued = true;
            next();
        }
    }

    private void next() {
        tag.schedule(this::runOne, latency.getAsLong(), TimeUnit.MILLISECONDS);
    }

    private void runOne() {
        Runnable task = queue.poll();
        try {
            task.run();
        } finally {
            if (queue.isEmpty()) {
                queued = false;
            } else {
                next();
            }
        }
    }
}
