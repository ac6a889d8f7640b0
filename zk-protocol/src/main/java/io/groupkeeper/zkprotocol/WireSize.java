package io.groupkeeper.zkprotocol;

import java.nio.charset.StandardCharsets;

/**
 * An operation's size in a transaction as ZooKeeper's jute serializes it (the multi header, then the request record),
 * computed by hand for a client whose creations carry one ACL of {@code world:anyone}. zk-store sizes with jute itself
 * (its ACLs may differ), and a test there holds this class to jute's numbers.
 */
public final class WireSize {

    /** A multi's header before each operation: type (int), done (boolean), error (int). */
    public static final int MULTI_HEADER_BYTES = 4 + 1 + 4;
    /** The vector {@code [world:anyone, all]}: its length, then perms (int), scheme and id (strings). */
    private static final int OPEN_ACL_BYTES = 4 + 4 + string("world") + string("anyone");

    private WireSize() {}

    /** The cost of {@code op}, whose path is {@code fullPath} on the server (the namespace included). */
    public static long of(String fullPath, ZkOp op) {
        long record;
        if (op instanceof ZkOp.Create c) {
            record = string(fullPath) + buffer(c.data()) + OPEN_ACL_BYTES + 4;
        } else if (op instanceof ZkOp.SetData s) {
            record = string(fullPath) + buffer(s.data()) + 4;
        } else {
            record = string(fullPath) + 4; // a delete or a check: the path and a version
        }
        return MULTI_HEADER_BYTES + record;
    }

    private static int string(String s) {
        return 4 + s.getBytes(StandardCharsets.UTF_8).length;
    }

    private static int buffer(byte[] b) {
        return 4 + (b == null ? 0 : b.length);
    }
}
