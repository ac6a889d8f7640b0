package io.groupkeeper.assignor;

import io.groupkeeper.Names;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What one member asks for: the topics it subscribes to, and its static instance id if it has one.
 */
public record MemberSubscription(String memberId, SortedSet<String> topics, Optional<String> instanceId) {

    public MemberSubscription {
        Names.requireValid("member id", memberId);
        Objects.requireNonNull(topics, "topics");
        Objects.requireNonNull(instanceId, "instanceId");
        topics = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(topics));
    }

    public static MemberSubscription of(String memberId, Set<String> topics) {
        return new MemberSubscription(memberId, new TreeSet<>(topics), Optional.empty());
    }

    public static MemberSubscription of(String memberId, String... topics) {
        return of(memberId, Set.of(topics));
    }
}
