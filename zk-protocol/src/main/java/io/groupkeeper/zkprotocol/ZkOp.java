package io.groupkeeper.zkprotocol;

/**
 * One operation of a transaction ({@code multi}) or a single write, with ZooKeeper's version semantics: {@code
 * version} -1 matches any version. Paths are relative to the session's namespace, as the store writes them.
 */
public sealed interface ZkOp {

    String path();

    /** Creates a node; a sequential one gets ZooKeeper's ten-digit suffix. */
    record Create(String path, byte[] data, boolean ephemeral, boolean sequential) implements ZkOp {}

    record SetData(String path, byte[] data, int version) implements ZkOp {}

    record Delete(String path, int version) implements ZkOp {}

    record Check(String path, int version) implements ZkOp {}

    static ZkOp create(String path, byte[] data) {
        return new Create(path, data, false, false);
    }

    static ZkOp createEphemeral(String path, byte[] data) {
        return new Create(path, data, true, false);
    }

    static ZkOp set(String path, byte[] data, int version) {
        return new SetData(path, data, version);
    }

    static ZkOp delete(String path, int version) {
        return new Delete(path, version);
    }

    static ZkOp check(String path, int version) {
        return new Check(path, version);
    }
}
