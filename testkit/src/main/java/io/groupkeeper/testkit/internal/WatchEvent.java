package io.groupkeeper.testkit.internal;

/**
 * A watch notification, as ZooKeeper's {@code WatchedEvent} for node events: with the id of the transaction that fired
 * it (ZooKeeper 3.9 names it too).
 */
public record WatchEvent(Type type, String path, long zxid) {

    public enum Type {
        NODE_CREATED,
        NODE_DELETED,
        NODE_DATA_CHANGED,
        NODE_CHILDREN_CHANGED
    }
}
