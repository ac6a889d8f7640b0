package io.groupkeeper.cli.violation;

/** Deliberate violation: the cli uses zk-store's internal package, and zk-protocol's (of which it is no friend). */
public class CliUsesZkInternal {
    public String failure() {
        return io.groupkeeper.zookeeper.internal.ZkWire.failure("x", new IllegalStateException())
                .getMessage();
    }

    public String path() {
        return io.groupkeeper.zkprotocol.internal.ZkPaths.group("g");
    }
}
