package io.groupkeeper.zkprotocol;

import io.groupkeeper.spi.StoreException;

/**
 * A refused operation, as ZooKeeper's {@code KeeperException} reports it: a code, the path, and for a transaction the
 * index of the operation that failed (-1 when none is to blame, e.g. the transaction was not applied for a lost
 * connection).
 */
public final class ZkFailure extends Exception {

    private static final long serialVersionUID = 1L;

    private final ZkCode code;
    private final String path;
    private final int failedOp;

    public ZkFailure(ZkCode code, String path, int failedOp, Throwable cause) {
        super(code + (path == null ? "" : " " + path) + (failedOp >= 0 ? " (operation " + failedOp + ")" : ""), cause);
        this.code = code;
        this.path = path;
        this.failedOp = failedOp;
    }

    public ZkFailure(ZkCode code, String path, int failedOp) {
        this(code, path, failedOp, null);
    }

    public ZkFailure(ZkCode code, String path) {
        this(code, path, -1, null);
    }

    public ZkCode code() {
        return code;
    }

    public String path() {
        return path;
    }

    /** The index of the failed operation of a transaction; -1 if none is to blame. */
    public int failedOp() {
        return failedOp;
    }

    /** A failure as the store reports it: a {@link StoreException} that names what was attempted and why it failed. */
    public static StoreException toStore(String what, Exception e) {
        if (e instanceof StoreException se) {
            return se;
        }
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        String detail = e instanceof ZkFailure f ? f.code() + (f.path() != null ? " " + f.path() : "") : e.toString();
        return new StoreException("ZooKeeper: " + what + " failed: " + detail, e);
    }
}
