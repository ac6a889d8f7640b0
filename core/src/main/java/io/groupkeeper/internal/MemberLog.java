package io.groupkeeper.internal;

import org.slf4j.MDC;

/** The logging context of one member: its name in messages, and the MDC keys {@code group} and {@code member}. */
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
        String oldGroup = MDC.get("group");
        String oldMember = MDC.get("member");
        MDC.put("group", group);
        MDC.put("member", member);
        try {
            r.run();
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
