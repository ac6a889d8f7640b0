package io.groupkeeper.testkit.internal;

import io.groupkeeper.testkit.NodeStat;
import java.util.TreeSet;

/** One node of the modelled tree; mutated only under the ensemble's lock. */
final class Node {

    byte[] data;
    int version;
    int cversion;
    final long czxid;
    long mzxid;
    final long ephemeralOwner;
    final TreeSet<String> children = new TreeSet<>();

    Node(byte[] data, long zxid, long ephemeralOwner) {
        this.data = data;
        this.czxid = zxid;
        this.mzxid = zxid;
        this.ephemeralOwner = ephemeralOwner;
    }

    NodeStat stat() {
        return new NodeStat(czxid, mzxid, version, cversion, ephemeralOwner, children.size());
    }
}
