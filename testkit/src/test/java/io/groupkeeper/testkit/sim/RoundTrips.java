package io.groupkeeper.testkit.sim;

import java.util.function.Supplier;

/**
 * The causal clock of a handoff count: how many store round trips, one after another, led to what the running task
 * does now, and how many of them were writes. A request answered in one round trip moves its caller one step on; a
 * watch notification arrives with the step of the write that fired it; a task runs at the step of whatever submitted
 * it ({@link SimScheduler} carries it along); requests sent back to back (pipelined) all answer one step after the
 * sender. So the count measures sequential round trips, whatever the simulated clock says.
 */
final class RoundTrips {

    /** A point on the clock: round trips in sequence, and the writes among them. */
    record Step(long trips, long writes) implements Comparable<Step> {
        static final Step ZERO = new Step(0, 0);

        Step after(boolean write) {
            return new Step(trips + 1, writes + (write ? 1 : 0));
        }

        static Step max(Step a, Step b) {
            return a.compareTo(b) >= 0 ? a : b;
        }

        @Override
        public int compareTo(Step o) {
            int c = Long.compare(trips, o.trips);
            return c != 0 ? c : Long.compare(writes, o.writes);
        }
    }

    private static final ThreadLocal<Step> NOW = ThreadLocal.withInitial(() -> Step.ZERO);

    private RoundTrips() {}

    static Step now() {
        return NOW.get();
    }

    static void set(Step step) {
        NOW.set(step);
    }

    /** Runs {@code body} at {@code step} and returns what it returns; the caller's step is restored after. */
    static <T> T at(Step step, Supplier<T> body) {
        Step saved = NOW.get();
        NOW.set(step);
        try {
            return body.get();
        } finally {
            NOW.set(saved);
        }
    }

    /** {@link #at} for a task: the task's own step is thrown away when it ends. */
    static void run(Step step, Runnable body) {
        at(step, () -> {
            body.run();
            return null;
        });
    }
}
