package io.groupkeeper.assignor;

import io.groupkeeper.Names;
import java.util.Collections;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What one member asks for: the topics it subscribes to, its static instance id if it has one, and the rack it runs
 * in if known (for Kafka members the consumer's {@code client.rack}). A rack-aware assignor prefers to give a member
 * partitions with a replica in its rack ({@link PartitionRacks}); a member without a rack is neither local nor remote
 * to any partition.
 */
public record MemberSubscription(
        String memberId, SortedSet<String> topics, Optional<String> instanceId, Optional<String> rack) {

    /** The longest rack accepted, in characters. */
    public static final int MAX_RACK_LENGTH = 255;

    public MemberSubscription {
        Names.requireValid("member id", memberId);
        Objects.requireNonNull(topics, "topics");
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(rack, "rack");
        rack.ifPresent(MemberSubscription::requireValidRack);
        topics = Collections.unmodifiableSortedSet(new TreeSet<>(topics));
    }

    /** A subscription without a rack. */
    public MemberSubscription(String memberId, SortedSet<String> topics, Optional<String> instanceId) {
        this(memberId, topics, instanceId, Optional.empty());
    }

    public static MemberSubscription of(String memberId, Set<String> topics) {
        return new MemberSubscription(memberId, new TreeSet<>(topics), Optional.empty(), Optional.empty());
    }

    public static MemberSubscription of(String memberId, String... topics) {
        return of(memberId, Set.of(topics));
    }

    /** This subscription in {@code rack}. */
    public MemberSubscription withRack(String rack) {
        return new MemberSubscription(memberId, topics, instanceId, Optional.of(rack));
    }

    /**
     * Returns {@code rack} if it is usable as a rack: 1..255 characters, no control character, not blank (Kafka puts
     * no rule on {@code broker.rack} or {@code client.rack}; this only keeps what a node stores printable).
     *
     * @throws IllegalArgumentException naming the problem
     */
    public static String requireValidRack(String rack) {
        if (rack == null) {
            throw new IllegalArgumentException("rack must not be null");
        }
        if (rack.isBlank()) {
            throw new IllegalArgumentException("rack must not be empty or blank");
        }
        if (rack.length() > MAX_RACK_LENGTH) {
            throw new IllegalArgumentException(
                    "rack must be at most " + MAX_RACK_LENGTH + " characters, was " + rack.length());
        }
        for (int i = 0; i < rack.length(); i++) {
            if (Character.isISOControl(rack.charAt(i))) {
                throw new IllegalArgumentException("rack contains a control character at index " + i);
            }
        }
        return rack;
    }
}
