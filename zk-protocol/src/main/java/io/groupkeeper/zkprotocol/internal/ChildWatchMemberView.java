package io.groupkeeper.zkprotocol.internal;

import io.groupkeeper.spi.internal.MemberInfo;
import io.groupkeeper.spi.internal.MembersSnapshot;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The member view for servers that refuse persistent watches: a one-shot child watch that fires the armed hooks, a
 * listing, and a read of each node not seen before (member nodes are never rewritten; a name that left and came back
 * between two listings is read again only if the departure was seen).
 */
final class ChildWatchMemberView implements MemberView {

    private final MemberNodes nodes;
    // Guarded by this.
    private final SortedMap<String, MemberInfo> members = new TreeMap<>();
    private final Map<String, String> problems = new TreeMap<>();
    private final Set<Runnable> hooks = new LinkedHashSet<>();

    ChildWatchMemberView(MemberNodes nodes) {
        this.nodes = nodes;
    }

    @Override
    public MembersSnapshot read(Runnable onChange) {
        synchronized (this) {
            hooks.add(onChange);
        }
        List<String> children = nodes.zk.children(nodes.parent, this::fireHooks);
        List<String> unknown = new ArrayList<>();
        synchronized (this) {
            members.keySet().retainAll(children);
            problems.keySet().retainAll(children);
            children.stream()
                    .filter(c -> !members.containsKey(c) && !problems.containsKey(c))
                    .forEach(unknown::add);
        }
        Map<String, MemberInfo> read = new TreeMap<>();
        Map<String, String> unreadable = new TreeMap<>();
        unknown.forEach(child -> nodes.readNode(child, read, unreadable)); // no lock held across the round trips
        synchronized (this) {
            members.putAll(read);
            problems.putAll(unreadable);
            return new MembersSnapshot(members, List.copyOf(problems.values()));
        }
    }

    @Override
    public MembersSnapshot list() {
        return nodes.list();
    }

    private void fireHooks() {
        List<Runnable> due;
        synchronized (this) {
            due = new ArrayList<>(hooks);
            hooks.clear();
        }
        due.forEach(Runnable::run);
    }
}
