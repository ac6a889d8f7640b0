package io.groupkeeper.kafka.internal;

import java.util.ConcurrentModificationException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One thread at a time polls, commits and closes (as with {@code KafkaConsumer}); re-entrant, so the user's
 * rebalance listener may call {@code commitSync()} from inside {@code poll()}. Another thread's call while one is
 * inside throws {@link ConcurrentModificationException}.
 */
final class PollingThreadGuard {

    private static final long NO_THREAD = -1;

    private final String group;
    private final AtomicLong thread = new AtomicLong(NO_THREAD);
    /** Nesting depth of the thread inside (touched by that thread only). */
    private int depth;

    PollingThreadGuard(String group) {
        this.group = group;
    }

    void enter() {
        long id = Thread.currentThread().getId();
        if (id != thread.get() && !thread.compareAndSet(NO_THREAD, id)) {
            throw new ConcurrentModificationException("CoordinatedConsumer of group " + group
                    + " is not safe for multi-threaded access: one thread polls, commits and closes it");
        }
        depth++;
    }

    void exit() {
        if (--depth == 0) {
            thread.set(NO_THREAD);
        }
    }
}
