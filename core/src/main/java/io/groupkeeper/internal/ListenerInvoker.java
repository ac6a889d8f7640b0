package io.groupkeeper.internal;

import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls the user's {@link RebalanceListener} on the member's callback lane: one callback at a time, in the order
 * queued, apart from the protocol lane (which may wait on the store). A callback that throws (an Error included) is
 * logged; the protocol goes on. The protocol never waits for a callback: a revocation returns a future that the
 * reconciler continues from.
 */
final class ListenerInvoker {

    private static final Logger LOG = LoggerFactory.getLogger(ListenerInvoker.class);

    private final RebalanceListener listener;
    private final SerialExecutor lane;

    ListenerInvoker(RebalanceListener listener, SerialExecutor lane) {
        this.listener = listener;
        this.lane = lane;
    }

    /** {@code announce} runs on the callback lane right before the listener hears of the partitions. */
    void assigned(SortedMap<TopicPartition, OptionalLong> partitions, Runnable announce) {
        lane.execute(guarded("onPartitionsAssigned", () -> {
            announce.run();
            listener.onPartitionsAssigned(partitions);
        }));
    }

    void lost(SortedSet<TopicPartition> partitions) {
        lane.execute(guarded("onPartitionsLost", () -> listener.onPartitionsLost(partitions)));
    }

    void offsetsChanged(SortedSet<TopicPartition> partitions) {
        lane.execute(guarded("onOffsetsChanged", () -> listener.onOffsetsChanged(partitions)));
    }

    /**
     * The revocation, in callback order; the future completes once it returned (the release may follow). With no
     * callback running or queued the calling thread runs it itself, as the callback lane, and the future is complete
     * on return: on every giver's path that saves two thread hand-overs.
     */
    CompletableFuture<Void> revoked(SortedSet<TopicPartition> partitions) {
        return inOrder(guarded("onPartitionsRevoked", () -> listener.onPartitionsRevoked(partitions)));
    }

    /** Completes once every callback queued before it has returned (at once if none is queued or running). */
    CompletableFuture<Void> afterQueued() {
        return inOrder(() -> {});
    }

    /** Runs {@code call} after the callbacks queued before it, inline if none is; the future completes once it ran. */
    private CompletableFuture<Void> inOrder(Runnable call) {
        if (lane.runIfIdle(call)) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        lane.execute(() -> {
            try {
                call.run();
            } finally {
                done.complete(null);
            }
        });
        return done;
    }

    /** Whether the calling thread is running a callback right now. */
    boolean inCallback() {
        return lane.inLane();
    }

    private Runnable guarded(String name, Runnable call) {
        return () -> {
            try {
                call.run();
            } catch (RuntimeException | Error e) {
                // Errors too (an AssertionError, a class missing at run time): one that escaped would end the lane's
                // drain with the lane still taken, and no later callback, revocation or close would run.
                LOG.error("listener {} threw; continuing", name, e);
            }
        };
    }
}
