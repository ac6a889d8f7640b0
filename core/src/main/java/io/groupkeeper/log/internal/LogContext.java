package io.groupkeeper.log.internal;

import java.util.function.Supplier;
import org.slf4j.MDC;

/**
 * The logging context of groupkeeper's lines: the MDC keys {@code group} and {@code member} (the documented pattern
 * {@code %X{group}/%X{member}}), which name the group and member in every line, so messages carry no prefix of their
 * own. The one helper that sets them: core's member (its lanes set them around each task, its user-thread calls around
 * the call) and the Kafka adapter (its polling thread, its container's threads) alike.
 *
 * <p>An instance is one member's context, with its name for the few messages about the member itself (started,
 * closed); {@link #enter(String, String)} is the same for a thread that knows only the group, or a member id that
 * comes later.
 *
 * <p>Shared with the Kafka adapter only (core's module-info exports this package to it; {@code architecture-tests}
 * keeps everyone else out): not API.
 */
public final class LogContext {

    /** The MDC key naming the group. */
    public static final String GROUP = "group";
    /** The MDC key naming the member (its id). */
    public static final String MEMBER = "member";

    private final String group;
    private final String member;

    /** The context of member {@code member} of {@code group}. */
    public LogContext(String group, String member) {
        this.group = group;
        this.member = member;
    }

    /** {@code group/member}, as log messages name it. */
    public String member() {
        return group + "/" + member;
    }

    /** Runs {@code r} with this member in the logging context; restores what was there (a callback run inline). */
    public void withMdc(Runnable r) {
        try (Scope ignored = enter(group, member)) {
            r.run();
        }
    }

    /** Computes {@code s} with this member in the logging context, as {@link #withMdc}. */
    public <T> T inContext(Supplier<T> s) {
        try (Scope ignored = enter(group, member)) {
            return s.get();
        }
    }

    /**
     * Puts {@code group} and {@code member} in the MDC until the scope closes (either may be null: left out), then
     * puts back what was there.
     */
    public static Scope enter(String group, String member) {
        Scope before = new Scope(MDC.get(GROUP), MDC.get(MEMBER));
        put(GROUP, group);
        put(MEMBER, member);
        return before;
    }

    /** What was in the MDC before {@link #enter}, put back by {@link #close}. */
    public static final class Scope implements AutoCloseable {
        private final String group;
        private final String member;

        private Scope(String group, String member) {
            this.group = group;
            this.member = member;
        }

        @Override
        public void close() {
            put(GROUP, group);
            put(MEMBER, member);
        }
    }

    private static void put(String key, String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }
}
