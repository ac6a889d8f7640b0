package io.groupkeeper.testkit.internal;

/** A watch notification, as ZooKeeper's {@code WatchedEvent} for node events. */
public record WatchEvent(Type type, String path) {

    public enum Type { NODE_CREATED, NODE_DELETED, NODE_DATA_CHANGED, NODE_CHILDREN_CHANGED }
}
