package io.groupkeeper.kafka.container;

import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/** One worker of a container as it is now: its member, whether it leads the group, what it owns and has paused. */
public record WorkerStatus(
        String group,
        String member,
        boolean leader,
        Set<TopicPartition> owned,
        Set<TopicPartition> paused,
        boolean running) {
    public WorkerStatus {
        owned = Set.copyOf(owned);
        paused = Set.copyOf(paused);
    }
}
