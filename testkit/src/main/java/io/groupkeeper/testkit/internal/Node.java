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

    /** A copy of this node as it is now (its data is never mutated in place, only replaced). */
    Node copy() {
        Node n = new Node(data, czxid, ephemeralOwner);
        n.version = version;
        n.cversion = cversion;
        n.mzxid = mzxid;
        n.children.addAll(children);
        return n;
    }

    NodeStat stat() {
        return new NodeStat(czxid, mzxid, version, cversion, ephemeralOwner, children.size());
    }
}
