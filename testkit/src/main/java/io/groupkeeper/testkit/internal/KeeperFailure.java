package io.groupkeeper.testkit.internal;

/**
 * A refused operation, as ZooKeeper's {@code KeeperException} reports it: a code, the path, and for a transaction the
 * index of the operation that failed (-1 when the transaction was not applied at all, e.g. on a lost connection).
 */
public final class KeeperFailure extends Exception {

    private static final long serialVersionUID = 1L;

    /** The subset of ZooKeeper's result codes the model produces. */
    public enum Code {
        NONODE,
        NODEEXISTS,
        BADVERSION,
        NOTEMPTY,
        NOCHILDRENFOREPHEMERALS,
        SESSIONEXPIRED,
        CONNECTIONLOSS
    }

    private final Code code;
    private final String path;
    private final int failedOp;

    public KeeperFailure(Code code, String path, int failedOp) {
        super(code + (path == null ? "" : " " + path) + (failedOp >= 0 ? " (operation " + failedOp + ")" : ""));
        this.code = code;
        this.path = path;
        this.failedOp = failedOp;
    }

    public KeeperFailure(Code code, String path) {
        this(code, path, -1);
    }

    public Code code() {
        return code;
    }

    public String path() {
        return path;
    }

    /** The index of the failed operation of a transaction; -1 if none is to blame. */
    public int failedOp() {
        return failedOp;
    }

    KeeperFailure at(int index) {
        return new KeeperFailure(code, path, index);
    }
}
