package io.groupkeeper.internal;

import io.groupkeeper.RebalanceListener;
import io.groupkeeper.assignor.PartitionAssignor;
import io.groupkeeper.metrics.GroupMetrics;
import io.groupkeeper.spi.TopicMetadataSource;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/** The validated configuration of one member. */
public record MemberConfig(
        String groupId,
        String memberId,
        Optional<String> instanceId,
        String host,
        Set<String> topics,
        PartitionAssignor assignor,
        RebalanceListener listener,
        TopicMetadataSource metadata,
        Duration settleDelay,
        Duration staticGracePeriod,
        GroupMetrics metrics,
        Duration registrationTimeout,
        Optional<String> rack) {

    public MemberConfig {
        Objects.requireNonNull(rack, "rack");
    }

    /** A configuration without a rack. */
    public MemberConfig(
            String groupId,
            String memberId,
            Optional<String> instanceId,
            String host,
            Set<String> topics,
            PartitionAssignor assignor,
            RebalanceListener listener,
            TopicMetadataSource metadata,
            Duration settleDelay,
            Duration staticGracePeriod,
            GroupMetrics metrics,
            Duration registrationTimeout) {
        this(
                groupId,
                memberId,
                instanceId,
                host,
                topics,
                assignor,
                listener,
                metadata,
                settleDelay,
                staticGracePeriod,
                metrics,
                registrationTimeout,
                Optional.empty());
    }
}
