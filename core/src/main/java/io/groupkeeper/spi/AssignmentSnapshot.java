package io.groupkeeper.spi;

import io.groupkeeper.assignor.Assignment;
import java.util.Collections;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The published assignment of a group: its generation, the leader that wrote it, every member's target, which
 * of those members are static, and an opaque {@code version} that the next publish must present (optimistic
 * concurrency: two leaders cannot both publish on top of the same snapshot).
 */
public record AssignmentSnapshot(long generation, Optional<String> leader, Assignment targets,
                                 SortedSet<String> staticMembers, long version) {

    public static final long ABSENT = -1;

    public AssignmentSnapshot {
        staticMembers = Collections.unmodifiableSortedSet(new TreeSet<>(staticMembers));
    }

    public static AssignmentSnapshot empty() {
        return new AssignmentSnapshot(0, Optional.empty(), Assignment.empty(), new TreeSet<>(), ABSENT);
    }
}
