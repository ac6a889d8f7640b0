package io.groupkeeper.testkit.internal;

import io.groupkeeper.spi.StoreException;
import io.groupkeeper.testkit.NodeStat;
import io.groupkeeper.zkprotocol.ZkCode;
import io.groupkeeper.zkprotocol.ZkEvent;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkNode;
import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.ZkStat;

/**
 * The session port's types (zk-protocol's {@code ZkOp}, {@code ZkStat}, {@code ZkNode}, {@code ZkEvent},
 * {@code ZkFailure}) from the model's and back, for {@link MemClient}: what zk-store's {@code ZkSession} does with
 * Curator's and ZooKeeper's types, here with the model's. Stateless.
 */
final class PortTranslation {

    private PortTranslation() {}

    static ZkStat stat(NodeStat s) {
        return s == null
                ? null
                : new ZkStat(s.version(), s.cversion(), s.czxid(), s.mzxid(), s.ephemeralOwner(), s.numChildren());
    }

    static ZkNode node(Ensemble.Read r) {
        return new ZkNode(r.data() == null ? new byte[0] : r.data(), stat(r.stat()));
    }

    static Op op(ZkOp op) {
        if (op instanceof ZkOp.Create c) {
            return new Op.Create(c.path(), c.data(), c.ephemeral(), c.sequential());
        }
        if (op instanceof ZkOp.SetData s) {
            return new Op.SetData(s.path(), s.data(), s.version());
        }
        if (op instanceof ZkOp.Delete d) {
            return new Op.Delete(d.path(), d.version());
        }
        return new Op.Check(op.path(), ((ZkOp.Check) op).version());
    }

    /** {@code op} on {@code path} instead of its own. */
    static Op at(Op op, String path) {
        if (op instanceof Op.Create c) {
            return new Op.Create(path, c.data(), c.ephemeral(), c.sequential());
        }
        if (op instanceof Op.SetData s) {
            return new Op.SetData(path, s.data(), s.version());
        }
        if (op instanceof Op.Delete d) {
            return new Op.Delete(path, d.version());
        }
        return new Op.Check(path, ((Op.Check) op).version());
    }

    static ZkEvent.Type type(WatchEvent.Type type) {
        return switch (type) {
            case NODE_CREATED -> ZkEvent.Type.CREATED;
            case NODE_DELETED -> ZkEvent.Type.DELETED;
            case NODE_DATA_CHANGED -> ZkEvent.Type.DATA_CHANGED;
            case NODE_CHILDREN_CHANGED -> ZkEvent.Type.CHILDREN_CHANGED;
        };
    }

    static ZkFailure zkFailure(KeeperFailure e) {
        ZkCode code = switch (e.code()) {
            case NONODE -> ZkCode.NONODE;
            case NODEEXISTS -> ZkCode.NODEEXISTS;
            case BADVERSION -> ZkCode.BADVERSION;
            case NOTEMPTY -> ZkCode.NOTEMPTY;
            case NOCHILDRENFOREPHEMERALS -> ZkCode.NOCHILDRENFOREPHEMERALS;
            case SESSIONEXPIRED -> ZkCode.SESSIONEXPIRED;
            case CONNECTIONLOSS -> ZkCode.CONNECTIONLOSS;
        };
        return new ZkFailure(code, e.path(), e.failedOp(), e);
    }

    static StoreException failure(String what, KeeperFailure e) {
        return new StoreException("in-memory ZooKeeper: " + what + " failed: " + e.getMessage(), e);
    }
}
