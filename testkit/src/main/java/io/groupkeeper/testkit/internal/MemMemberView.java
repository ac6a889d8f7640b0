package io.groupkeeper.testkit.internal;

import io.groupkeeper.spi.CorruptNodeException;
import io.groupkeeper.spi.MemberInfo;
import io.groupkeeper.spi.MembersSnapshot;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The members of a group with a standing watch, as the ZooKeeper store's member view: one persistent recursive watch
 * on the members folder (added at the first read with a hook in each session) fires the armed hooks on every join and
 * leave; a hook object armed twice runs once. A disconnect may hide changes (persistent watches are not replayed), so
 * the reconnection fires the hooks too. Reads always list the folder: in memory that costs nothing.
 */
final class MemMemberView {

    private final MemClient zk;
    private final String parent;
    private final Set<Runnable> hooks = new LinkedHashSet<>();
    private long watchedSession;

    MemMemberView(MemClient zk, String parent) {
        this.zk = zk;
        this.parent = parent;
        zk.addListener(event -> {
            if (event.isReconnection()) {
                fireHooks();
            }
        });
    }

    MembersSnapshot read(Runnable onChange) {
        long session = zk.sessionId();
        boolean watch;
        synchronized (this) {
            hooks.add(onChange);
            watch = watchedSession != session;
        }
        if (watch) {
            zk.addPersistentRecursiveWatch(parent, event -> {
                String path = event.path();
                if (path.equals(zk.abs(parent)) || path.startsWith(zk.abs(parent) + "/")) {
                    fireHooks();
                }
            });
            synchronized (this) {
                watchedSession = session;
            }
        }
        return list();
    }

    MembersSnapshot list() {
        SortedMap<String, MemberInfo> members = new TreeMap<>();
        Map<String, String> problems = new TreeMap<>();
        for (String child : zk.children(parent, null)) {
            String path = parent + "/" + child;
            zk.read(path, null).ifPresent(r -> {
                try {
                    MemberInfo info = Bodies.decode(zk.abs(path), r.data(), Bodies.Member.class).info();
                    if (!info.memberId().equals(child)) {
                        throw new CorruptNodeException(zk.abs(path), "memberId '" + info.memberId()
                                + "' does not match the node name");
                    }
                    members.put(child, info);
                } catch (CorruptNodeException e) {
                    problems.put(child, e.getMessage());
                }
            });
        }
        return new MembersSnapshot(members, List.copyOf(problems.values()));
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
