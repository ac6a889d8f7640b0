package io.groupkeeper.zkprotocol.admin;

import java.util.Optional;
import java.util.SortedSet;

/** One line of {@code groups list}. */
public record GroupSummary(
        String group,
        GroupState state,
        int members,
        long generation,
        Optional<String> leader,
        SortedSet<String> topics,
        int partitionsWithOffsets) {}
