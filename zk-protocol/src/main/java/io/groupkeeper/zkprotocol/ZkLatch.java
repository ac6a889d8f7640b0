package io.groupkeeper.zkprotocol;

/**
 * A participant of a leader election under one folder (Curator's {@code LeaderLatch} protocol: zk-store's latch on a
 * server, the model's latch in memory): each participant an ephemeral sequential node, the lowest one leads, each
 * watches only its predecessor.
 */
public interface ZkLatch extends AutoCloseable {

    /** Joins the election; leadership is told to the listeners given at creation. */
    void start();

    boolean hasLeadership();

    /** This participant's node (relative path), or null before it was created. */
    String ourPath();

    /** Leaves the election; a leader is told it is no longer one. */
    @Override
    void close();
}
