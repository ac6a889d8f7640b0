package io.groupkeeper.internal.violation;

/** Deliberate violation (in a core package): core must not import ZooKeeper. */
public class CoreUsesZooKeeper {
    public org.apache.zookeeper.ZooKeeper zk;
}
