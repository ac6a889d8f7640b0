package io.groupkeeper.internal;

import org.slf4j.MDC;

/**
 * The logging context of one member: the MDC keys {@code group} and {@code member}, which name the member in every
 * line it logs (its lanes set them around each task, its user-thread calls around the call), so messages carry no
 * prefix of their own; and its name, for the few messages about the member itself (started, closed).
 */
final class MemberLog {

    private final String group;
    private final String member;

    MemberLog(String group, String member) {
        this.group = group;
        this.member = member;
    }

    /** {@code group/member}, as log messages name it. */
    String member() {
        return group + "/" + member;
    }

    /** Runs {@code r} with this member in the logging context; restores what was there (a callback run inline). */
    void withMdc(Runnable r) {
        inContext(() -> {
            r.run();
            return null;
        });
    }

    /** Computes {@code s} with this member in the logging context, as {@link #withMdc}. */
    <T> T inContext(java.util.function.Supplier<T> s) {
        String oldGroup = MDC.get("group");
        String oldMember = MDC.get("member");
        MDC.put("group", group);
        MDC.put("member", member);
        try {
            return s.get();
        } finally {
            restore("group", oldGroup);
            restore("member", oldMember);
        }
    }

    private static void restore(String key, String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }
}
