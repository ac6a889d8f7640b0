package io.groupkeeper.testkit.internal;

import io.groupkeeper.testkit.SimulatedThreads;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The answer of a background request that a silent cut holds: it completes on the client's event lane when the cut
 * ends (as ZooKeeper's event thread runs the callbacks of background requests). A simulated thread that waits for it
 * (or for a stage derived from it: {@code thenApply}, {@code thenCompose}, ... make more of these) is held through its
 * {@link SimulatedThreads} while the rest of the world runs; the timeout of {@code get(timeout, unit)} is not applied
 * (simulated time moves only when every thread waits, and the cut ends before any caller's timeout).
 */
final class HeldFuture<T> extends CompletableFuture<T> {

    private final SimulatedThreads threads;

    HeldFuture(SimulatedThreads threads) {
        this.threads = threads;
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new HeldFuture<>(threads);
    }

    private void awaitAnswer() {
        if (isDone()) {
            return;
        }
        if (!threads.canWait()) {
            throw new IllegalStateException("a request held by a silent cut was awaited outside a simulated thread");
        }
        threads.await(this, true);
    }

    @Override
    public T join() {
        awaitAnswer();
        return super.join();
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        awaitAnswer();
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        awaitAnswer();
        return super.get(timeout, unit);
    }
}
