package io.groupkeeper.cli.violation;

/** Deliberate violation: the cli uses zk-store's internal package. */
public class CliUsesZkInternal {
    public String path() {
        return io.groupkeeper.zookeeper.internal.ZkPaths.group("g");
    }
}
