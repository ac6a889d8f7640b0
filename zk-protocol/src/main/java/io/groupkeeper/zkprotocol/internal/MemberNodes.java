package io.groupkeeper.zkprotocol.internal;

import io.groupkeeper.spi.CorruptNodeException;
import io.groupkeeper.spi.internal.MemberInfo;
import io.groupkeeper.spi.internal.MembersSnapshot;
import io.groupkeeper.zkprotocol.ZkPort;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** Reads and decodes the member nodes of one members folder: what both member views share. */
final class MemberNodes {

    final ZkPort zk;
    final String parent;

    MemberNodes(ZkPort zk, String parent) {
        this.zk = zk;
        this.parent = parent;
    }

    /** The live members, listed and read now (no watch, nothing cached). */
    MembersSnapshot list() {
        SortedMap<String, MemberInfo> loaded = new TreeMap<>();
        Map<String, String> loadedProblems = new TreeMap<>();
        load(loaded, loadedProblems);
        return new MembersSnapshot(loaded, List.copyOf(loadedProblems.values()));
    }

    /** Lists the folder and reads every member node into {@code into} (or its problem into {@code unreadable}). */
    void load(Map<String, MemberInfo> into, Map<String, String> unreadable) {
        for (String child : zk.children(parent, null)) {
            readNode(child, into, unreadable);
        }
    }

    /** Reads one member node into {@code into} (or its problem into {@code unreadable}); gone: nothing. */
    void readNode(String child, Map<String, MemberInfo> into, Map<String, String> unreadable) {
        zk.read(parent + "/" + child, null).ifPresent(r -> decode(child, r.data(), into, unreadable));
    }

    /** Decodes a member node's body: a member, or (unreadable, or not matching its name) a problem. */
    void decode(String child, byte[] data, Map<String, MemberInfo> into, Map<String, String> unreadable) {
        String path = parent + "/" + child;
        try {
            MemberInfo info = NodeCodec.member(zk.abs(path), data);
            if (!info.memberId().equals(child)) {
                throw new CorruptNodeException(path, "memberId '" + info.memberId() + "' does not match the node name");
            }
            into.put(child, info);
            unreadable.remove(child);
        } catch (CorruptNodeException e) {
            into.remove(child);
            unreadable.put(child, e.getMessage());
        }
    }
}
