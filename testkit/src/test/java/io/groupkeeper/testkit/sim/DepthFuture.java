package io.groupkeeper.testkit.sim;

import io.groupkeeper.testkit.sim.RoundTrips.Step;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The answer of a request sent in the background, carrying the {@link RoundTrips} step it arrived at. The model
 * answers at once, in the sender's thread, so the sender's clock must not move when it sends (the next request goes
 * out right behind, pipelined); instead whatever runs on the answer — a continuation, or a thread that waits for it —
 * runs at the answer's step.
 */
final class DepthFuture<T> extends CompletableFuture<T> {

    private Step step = Step.ZERO;

    static <T> DepthFuture<T> of(CompletableFuture<T> answer, Step step) {
        DepthFuture<T> f = new DepthFuture<>();
        f.step = step;
        answer.whenComplete((v, e) -> {
            if (e != null) {
                f.completeExceptionally(e);
            } else {
                f.complete(v);
            }
        });
        return f;
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new DepthFuture<>();
    }

    /** Runs {@code body} at this answer's step; the result's step is what the body reached. */
    private <U> CompletableFuture<U> continued(java.util.function.Supplier<CompletableFuture<U>> body) {
        Step[] reached = {step};
        CompletableFuture<U> result = RoundTrips.at(step, () -> {
            CompletableFuture<U> r = body.get();
            reached[0] = RoundTrips.now();
            return r;
        });
        if (result instanceof DepthFuture<U> d) {
            d.step = Step.max(d.step, reached[0]);
        }
        return result;
    }

    @Override
    public <U> CompletableFuture<U> thenCompose(Function<? super T, ? extends CompletionStage<U>> fn) {
        Step[] inner = {Step.ZERO};
        CompletableFuture<U> r = continued(() -> super.thenCompose(v -> {
            CompletionStage<U> s = fn.apply(v);
            inner[0] = s instanceof DepthFuture<U> d ? d.step : RoundTrips.now();
            return s;
        }));
        if (r instanceof DepthFuture<U> d) {
            d.step = Step.max(d.step, inner[0]);
        }
        return r;
    }

    @Override
    public <U> CompletableFuture<U> thenApply(Function<? super T, ? extends U> fn) {
        return continued(() -> super.thenApply(fn));
    }

    @Override
    public <U> CompletableFuture<U> handle(BiFunction<? super T, Throwable, ? extends U> fn) {
        return continued(() -> super.handle(fn));
    }

    @Override
    public CompletableFuture<T> exceptionally(Function<Throwable, ? extends T> fn) {
        return continued(() -> super.exceptionally(fn));
    }

    @Override
    public CompletableFuture<T> whenComplete(BiConsumer<? super T, ? super Throwable> action) {
        return continued(() -> super.whenComplete(action));
    }

    @Override
    public T join() {
        T v = super.join();
        RoundTrips.set(Step.max(RoundTrips.now(), step));
        return v;
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        T v = super.get();
        RoundTrips.set(Step.max(RoundTrips.now(), step));
        return v;
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        T v = super.get(timeout, unit);
        RoundTrips.set(Step.max(RoundTrips.now(), step));
        return v;
    }
}
