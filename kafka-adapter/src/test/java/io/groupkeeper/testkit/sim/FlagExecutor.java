package io.groupkeeper.testkit.sim;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The lifecycle of the simulation's executors ({@link SimTimer}, {@link SimKafkaClients}' pools): a flag set by
 * {@code shutdown}; terminated once shut down, and nothing to wait for (their tasks run in the scheduler's steps).
 */
abstract class FlagExecutor extends AbstractExecutorService {

    protected volatile boolean shutdown;

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
