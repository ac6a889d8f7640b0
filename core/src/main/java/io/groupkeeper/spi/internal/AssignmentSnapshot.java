package io.groupkeeper.spi.internal;

import io.groupkeeper.assignor.Assignment;
import java.util.Collections;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The published assignment of a group: its generation, the leader that wrote it, every member's target, which
 * of those members are static, and an opaque {@code version} that the next publish must present (optimistic
 * concurrency: two leaders cannot both publish on top of the same snapshot). {@code damaged} names the members
 * whose stored target did not read back as a leader writes it (unreadable, or naming a partition another target
 * names too, as a generation published only in part can): the next publish must rewrite them even if their
 * computed target equals what {@code targets} shows for them.
 */
public record AssignmentSnapshot(
        long generation,
        Optional<String> leader,
        Assignment targets,
        SortedSet<String> staticMembers,
        long version,
        SortedSet<String> damaged) {

    public static final long ABSENT = -1;

    public AssignmentSnapshot {
        staticMembers = Collections.unmodifiableSortedSet(new TreeSet<>(staticMembers));
        damaged = Collections.unmodifiableSortedSet(new TreeSet<>(damaged));
    }

    public AssignmentSnapshot(
            long generation,
            Optional<String> leader,
            Assignment targets,
            SortedSet<String> staticMembers,
            long version) {
        this(generation, leader, targets, staticMembers, version, new TreeSet<>());
    }

    public static AssignmentSnapshot empty() {
        return new AssignmentSnapshot(0, Optional.empty(), Assignment.empty(), new TreeSet<>(), ABSENT);
    }
}
