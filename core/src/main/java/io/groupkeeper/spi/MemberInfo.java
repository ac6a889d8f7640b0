package io.groupkeeper.spi;

import io.groupkeeper.Names;
import java.time.Instant;
import java.util.Collections;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/** What a member publishes about itself in its ephemeral member node. */
public record MemberInfo(String memberId, Optional<String> instanceId, String host, SortedSet<String> topics,
                         Instant joinedAt, String assignor) {

    public MemberInfo {
        Names.requireValid("member id", memberId);
        Objects.requireNonNull(instanceId, "instanceId");
        instanceId.ifPresent(i -> Names.requireValid("instance id", i));
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(topics, "topics");
        topics.forEach(t -> Names.requireValid("topic", t));
        Objects.requireNonNull(joinedAt, "joinedAt");
        Objects.requireNonNull(assignor, "assignor");
        topics = Collections.unmodifiableSortedSet(new TreeSet<>(topics));
    }

    public boolean isStatic() {
        return instanceId.isPresent();
    }
}
