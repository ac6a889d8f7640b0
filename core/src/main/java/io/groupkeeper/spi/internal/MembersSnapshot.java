package io.groupkeeper.spi.internal;

import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The live members of a group. Member nodes that could not be read (corrupt JSON) are listed in {@code problems}
 * (each names the path) and left out of {@code members}, so one bad node does not stop the group.
 */
public record MembersSnapshot(SortedMap<String, MemberInfo> members, List<String> problems) {

    public MembersSnapshot {
        members = Collections.unmodifiableSortedMap(new TreeMap<>(members));
        problems = List.copyOf(problems);
    }
}
