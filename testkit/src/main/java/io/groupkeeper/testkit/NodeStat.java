package io.groupkeeper.testkit;

/**
 * A node's metadata as ZooKeeper's {@code Stat} reports it. {@code version} counts the writes of the node's data since
 * it was created (so it restarts at 0 when a node is deleted and created again); {@code cversion} the changes of its
 * children; {@code czxid} and {@code mzxid} are the ids of the transactions that created it and last wrote it, from
 * the ensemble's single zxid counter; {@code ephemeralOwner} is the owning session, 0 for a persistent node.
 */
public record NodeStat(long czxid, long mzxid, int version, int cversion, long ephemeralOwner, int numChildren) {}
