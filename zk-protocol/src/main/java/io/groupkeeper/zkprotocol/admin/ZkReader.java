package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.zkprotocol.ZkCode;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkNode;
import io.groupkeeper.zkprotocol.ZkPort;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads many nodes in few round trips: the port's {@link ZkPort#readAll} and {@link ZkPort#childrenAll} (on ZooKeeper,
 * batches of read-only {@code multi}s; on the model, one read each). Paths are relative to the port's namespace, as
 * everywhere in the store; a read refused by an ACL is the admin's CREDENTIALS refusal.
 */
final class ZkReader {

    private final ZkPort zk;

    ZkReader(ZkPort zk) {
        this.zk = zk;
    }

    String abs(String path) {
        return zk.abs(path);
    }

    /** The data of each path; absent paths map to empty. Iteration order follows {@code paths}. */
    Map<String, Optional<ZkNode>> data(Collection<String> paths) {
        try {
            return zk.readAll(List.copyOf(new LinkedHashSet<>(paths)));
        } catch (ZkFailure e) {
            throw refused(e);
        }
    }

    /** The children of each path (sorted); absent paths map to empty. */
    Map<String, Optional<List<String>>> children(Collection<String> paths) {
        try {
            return zk.childrenAll(List.copyOf(new LinkedHashSet<>(paths)));
        } catch (ZkFailure e) {
            throw refused(e);
        }
    }

    Optional<ZkNode> data(String path) {
        return data(List.of(path)).get(path);
    }

    List<String> children(String path) {
        return children(List.of(path)).get(path).orElse(List.of());
    }

    private RuntimeException refused(ZkFailure e) {
        if (e.code() == ZkCode.NOAUTH) {
            return new AdminException(
                    "read of " + (e.path() == null ? "a node" : e.path()) + " refused by ZooKeeper",
                    AdminException.Remedy.CREDENTIALS,
                    null,
                    e);
        }
        return ZkFailure.toStore("read", e);
    }
}
