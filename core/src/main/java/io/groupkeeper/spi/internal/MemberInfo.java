package io.groupkeeper.spi.internal;

import io.groupkeeper.Names;
import io.groupkeeper.assignor.MemberSubscription;
import java.time.Instant;
import java.util.Collections;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What a member publishes about itself in its ephemeral member node. {@code rack} is where it runs (Kafka's
 * {@code client.rack}), empty when not configured — and in the nodes of members older than racks.
 */
public record MemberInfo(
        String memberId,
        Optional<String> instanceId,
        String host,
        SortedSet<String> topics,
        Instant joinedAt,
        String assignor,
        Optional<String> rack) {

    public MemberInfo {
        Names.requireValid("member id", memberId);
        Objects.requireNonNull(instanceId, "instanceId");
        instanceId.ifPresent(i -> Names.requireValid("instance id", i));
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(topics, "topics");
        topics.forEach(t -> Names.requireValid("topic", t));
        Objects.requireNonNull(joinedAt, "joinedAt");
        Objects.requireNonNull(assignor, "assignor");
        Objects.requireNonNull(rack, "rack");
        rack.ifPresent(MemberSubscription::requireValidRack);
        topics = Collections.unmodifiableSortedSet(new TreeSet<>(topics));
    }

    /** A member without a rack. */
    public MemberInfo(
            String memberId,
            Optional<String> instanceId,
            String host,
            SortedSet<String> topics,
            Instant joinedAt,
            String assignor) {
        this(memberId, instanceId, host, topics, joinedAt, assignor, Optional.empty());
    }

    public boolean isStatic() {
        return instanceId.isPresent();
    }
}
