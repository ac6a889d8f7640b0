package io.groupkeeper.testkit.internal;

import io.groupkeeper.testkit.NodeStat;

/**
 * One operation of a transaction ({@code multi}), with ZooKeeper's version semantics: {@code version} -1 matches any
 * version. Node data is bytes, as ZooKeeper stores them (null for an empty node).
 */
public sealed interface Op {

    String path();

    /** Creates a node; a sequential one gets ZooKeeper's ten-digit suffix from the parent's child version. */
    record Create(String path, byte[] data, boolean ephemeral, boolean sequential) implements Op {
        public static Create persistent(String path, byte[] data) {
            return new Create(path, data, false, false);
        }

        public static Create ephemeral(String path, byte[] data) {
            return new Create(path, data, true, false);
        }
    }

    record SetData(String path, byte[] data, int version) implements Op {}

    record Delete(String path, int version) implements Op {}

    record Check(String path, int version) implements Op {}

    /** What one applied operation yields: the path (the created name, for a sequential node) and the node's stat. */
    record Result(String path, NodeStat stat) {}
}
