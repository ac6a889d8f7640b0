package io.groupkeeper.testkit;

import java.util.concurrent.CompletableFuture;

/**
 * The threads of a simulation that steps every thread of a world itself ({@link InMemoryZooKeeper#simulatedThreads}):
 * how one of them waits for a request that a silent cut holds, while the rest of the world runs on. Without it (or
 * from a thread that {@link #canWait() cannot wait}) such a request fails at once, as after a disconnection.
 */
public interface SimulatedThreads {

    /** No simulated threads: nothing waits, a request during a silent cut fails at once. */
    SimulatedThreads NONE = new SimulatedThreads() {
        @Override
        public boolean canWait() {
            return false;
        }

        @Override
        public void await(CompletableFuture<?> answer, boolean viaEvents) {
            throw new IllegalStateException("no simulated thread can wait here");
        }
    };

    /** Whether the calling thread is a simulated thread that may wait for a held request. */
    boolean canWait();

    /**
     * Holds the calling thread until {@code answer} is complete, letting the rest of the simulated world run meanwhile;
     * called only when {@link #canWait()}. {@code viaEvents}: the answer comes through the client's event executor (a
     * background request's, as ZooKeeper's event thread runs its callback), which must then be let run even while
     * the waiting thread holds a lock; else it comes to the waiting thread itself (a blocking request's).
     */
    void await(CompletableFuture<?> answer, boolean viaEvents);

    /**
     * Whether a write that a silent cut held, and that fails because the cut was noticed, reached the server all the
     * same (it got through just before the cut; only its answer was lost): asked once per such write, in the order
     * they fail. By default never.
     */
    default boolean landsAnyway() {
        return false;
    }
}
