package io.groupkeeper.kafka.internal;

import io.groupkeeper.log.internal.LogContext;
import java.util.ConcurrentModificationException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * One thread at a time polls, commits and closes (as with {@code KafkaConsumer}), with the group and member in the
 * logging context ({@link LogContext}) while inside; re-entrant, so the user's
 * rebalance listener may call {@code commitSync()} from inside {@code poll()}. Another thread's call while one is
 * inside throws {@link ConcurrentModificationException}.
 */
final class PollingThreadGuard {

    private static final long NO_THREAD = -1;

    private final String group;
    private final Supplier<String> member;
    private final AtomicLong thread = new AtomicLong(NO_THREAD);
    /** The MDC before the outermost {@link #enter} (touched by the thread inside only). */
    private LogContext.Scope mdc;
    /** Nesting depth of the thread inside (touched by that thread only). */
    private int depth;

    PollingThreadGuard(String group) {
        this(group, () -> null);
    }

    /** {@code member}: the member id for the logging context of the calls (null while there is none). */
    PollingThreadGuard(String group, Supplier<String> member) {
        this.group = group;
        this.member = member;
    }

    void enter() {
        long id = Thread.currentThread().getId();
        if (id != thread.get() && !thread.compareAndSet(NO_THREAD, id)) {
            throw new ConcurrentModificationException("CoordinatedConsumer of group " + group
                    + " is not safe for multi-threaded access: one thread polls, commits and closes it");
        }
        if (depth++ == 0) {
            mdc = LogContext.enter(group, member.get()); // the calls' lines name group and member as the core's do
        }
    }

    void exit() {
        if (--depth == 0) {
            LogContext.Scope before = mdc;
            mdc = null;
            thread.set(NO_THREAD);
            if (before != null) {
                before.close();
            }
        }
    }
}
