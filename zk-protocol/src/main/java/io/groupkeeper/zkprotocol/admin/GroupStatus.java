package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.status.LagStatus;
import io.groupkeeper.status.PartitionStatus;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What {@code groups describe --status} shows: the group's status (its worst partition's) and each partition's,
 * judged over {@code window}. Without log ends ({@code logEndsKnown} false) lag comes from the lag recorded with
 * each commit, and a partition that never committed counts as OK.
 */
public record GroupStatus(String group, LagStatus status, Duration window, boolean logEndsKnown, List<Row> partitions) {

    public GroupStatus {
        partitions = List.copyOf(partitions);
    }

    /** One partition's status, with what it was judged on. */
    public record Row(
            TopicPartition partition,
            Optional<String> owner,
            OptionalLong committed,
            OptionalLong logEnd,
            PartitionStatus status) {}
}
