package io.groupkeeper.zookeeper.internal;

import io.groupkeeper.spi.StoreException;
import io.groupkeeper.zkprotocol.WireSize;
import io.groupkeeper.zkprotocol.ZkCode;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.ZkStat;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Collection;
import java.util.List;
import org.apache.jute.BinaryOutputArchive;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;

/**
 * ZooKeeper's client types in the port's words and back, for {@link ZkSession}: stats, result codes, the failed
 * operation of a transaction, failures as {@link StoreException}s naming the path, create modes, and what an operation
 * costs in a transaction as jute serializes it.
 */
public final class ZkWire {

    private ZkWire() {}

    public static ZkStat stat(Stat s) {
        return new ZkStat(
                s.getVersion(), s.getCversion(), s.getCzxid(), s.getMzxid(), s.getEphemeralOwner(), s.getNumChildren());
    }

    static CreateMode mode(ZkOp.Create c) {
        if (c.ephemeral()) {
            return c.sequential() ? CreateMode.EPHEMERAL_SEQUENTIAL : CreateMode.EPHEMERAL;
        }
        return c.sequential() ? CreateMode.PERSISTENT_SEQUENTIAL : CreateMode.PERSISTENT;
    }

    static ZkCode code(KeeperException.Code code) {
        return switch (code) {
            case OK -> ZkCode.OK;
            case NONODE -> ZkCode.NONODE;
            case NODEEXISTS -> ZkCode.NODEEXISTS;
            case BADVERSION -> ZkCode.BADVERSION;
            case NOTEMPTY -> ZkCode.NOTEMPTY;
            case NOCHILDRENFOREPHEMERALS -> ZkCode.NOCHILDRENFOREPHEMERALS;
            case CONNECTIONLOSS -> ZkCode.CONNECTIONLOSS;
            case SESSIONEXPIRED -> ZkCode.SESSIONEXPIRED;
            case OPERATIONTIMEOUT -> ZkCode.OPERATIONTIMEOUT;
            case NOAUTH -> ZkCode.NOAUTH;
            case UNIMPLEMENTED -> ZkCode.UNIMPLEMENTED;
            case MARSHALLINGERROR -> ZkCode.MARSHALLINGERROR;
            default -> ZkCode.OTHER;
        };
    }

    static ZkFailure zkFailure(KeeperException e) {
        return new ZkFailure(code(e.code()), e.getPath(), failedOp(e.getResults()), e);
    }

    /** The index of the operation that made a transaction fail, or -1 if unknown. */
    public static int failedOp(KeeperException e) {
        return failedOp(e.getResults());
    }

    static int failedOp(List<OpResult> results) {
        if (results == null) {
            return -1;
        }
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) instanceof OpResult.ErrorResult err
                    && err.getErr() != KeeperException.Code.OK.intValue()
                    && err.getErr() != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
                return i;
            }
        }
        return -1;
    }

    public static StoreException failure(String what, Exception e) {
        if (e instanceof StoreException se) {
            return se;
        }
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        String detail = e instanceof KeeperException ke
                ? ke.code() + (ke.getPath() != null ? " " + ke.getPath() : "")
                : e instanceof ZkFailure f ? f.code() + (f.path() != null ? " " + f.path() : "") : e.toString();
        return new StoreException("ZooKeeper: " + what + " failed: " + detail, e);
    }

    /** What {@code ops} cost in one transaction: see {@link #bytes(Op)}. */
    public static long bytes(Collection<Op> ops) {
        long sum = 0;
        for (Op op : ops) {
            sum += bytes(op);
        }
        return sum;
    }

    /** What one operation costs in a transaction: its multi header and its request record as jute serializes it. */
    public static long bytes(Op op) {
        Counter counter = new Counter();
        try {
            op.toRequestRecord().serialize(BinaryOutputArchive.getArchive(counter), "op");
        } catch (IOException e) {
            throw new IllegalStateException("cannot size " + op, e); // a counting stream does not fail
        }
        return WireSize.MULTI_HEADER_BYTES + counter.count;
    }

    private static final class Counter extends OutputStream {
        long count;

        @Override
        public void write(int b) {
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            count += len;
        }
    }
}
