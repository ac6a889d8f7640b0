package io.groupkeeper.zkprotocol;

/**
 * A notification of a persistent watch: a node event with its path (relative to the namespace) and the id of the
 * transaction that fired it (0 if the server does not say), or a connection event ({@link Type#CONNECTED}: the client
 * is connected again, {@link Type#DISCONNECTED}: it lost the connection).
 */
public record ZkEvent(Type type, String path, long zxid) {

    public enum Type {
        CREATED,
        DELETED,
        DATA_CHANGED,
        CHILDREN_CHANGED,
        WATCH_REMOVED,
        CONNECTED,
        DISCONNECTED
    }

    public boolean isConnectionEvent() {
        return type == Type.CONNECTED || type == Type.DISCONNECTED;
    }
}
