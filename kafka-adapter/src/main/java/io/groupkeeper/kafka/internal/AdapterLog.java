package io.groupkeeper.kafka.internal;

import org.slf4j.MDC;

/**
 * The adapter's and the container's logging context: the MDC keys the core uses ({@code group} and {@code member}, as
 * in the documented pattern {@code %X{group}/%X{member}}), so their lines name the group and member the same way the
 * core's do and messages carry no prefix of their own.
 */
public final class AdapterLog {

    public static final String GROUP = "group";
    public static final String MEMBER = "member";

    private AdapterLog() {
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
            restore(GROUP, group);
            restore(MEMBER, member);
        }
    }

    /** Puts {@code group} and {@code member} (either may be null: left out) in the MDC until the scope closes. */
    public static Scope enter(String group, String member) {
        Scope before = new Scope(MDC.get(GROUP), MDC.get(MEMBER));
        restore(GROUP, group);
        restore(MEMBER, member);
        return before;
    }

    private static void restore(String key, String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }
}
