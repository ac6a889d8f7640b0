package io.groupkeeper.zookeeper.internal;

import org.apache.zookeeper.data.Stat;

/**
 * A node as read: its body and its stat (version, incarnation, ephemeral owner). The store's reads ({@link ZkSession})
 * and the admin's batched reads return the same record.
 */
public record ZkNode(byte[] data, Stat stat) {
}
