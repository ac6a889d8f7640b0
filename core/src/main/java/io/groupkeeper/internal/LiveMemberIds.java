package io.groupkeeper.internal;

import java.util.HashMap;
import java.util.Map;

/**
 * The member ids held by the members of one keeper, from their registration until their leave is over. The store
 * cannot tell two members of one session apart (the member node is "already ours" for both), so the keeper refuses a
 * second live holder of one id in a group itself: a static member built again on the same keeper while the first is
 * still closing would otherwise re-confirm the first's owner nodes while it still processes (I1), and the first's
 * release and deregistration would then delete the second's nodes. Thread-safe.
 */
public final class LiveMemberIds {

    private final Map<String, Object> holders = new HashMap<>();

    /** Takes {@code memberId} of {@code group} for {@code holder}; false if another member holds it. */
    synchronized boolean take(String group, String memberId, Object holder) {
        Object held = holders.putIfAbsent(key(group, memberId), holder);
        return held == null || held == holder;
    }

    /** Frees {@code memberId} of {@code group} if {@code holder} holds it. */
    synchronized void free(String group, String memberId, Object holder) {
        holders.remove(key(group, memberId), holder);
    }

    private static String key(String group, String memberId) {
        return group + '\u0000' + memberId;
    }
}
