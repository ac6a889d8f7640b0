package io.groupkeeper.zkprotocol;

/**
 * A node's metadata as ZooKeeper's {@code Stat} reports it, the part the store reads: {@code version} counts the writes
 * of the node's data since it was created (it restarts at 0 when a node is deleted and created again), {@code cversion}
 * the changes of its children, {@code czxid}/{@code mzxid} the transactions that created it and last wrote it, {@code
 * ephemeralOwner} the owning session (0 for a persistent node).
 */
public record ZkStat(int version, int cversion, long czxid, long mzxid, long ephemeralOwner, int numChildren) {}
