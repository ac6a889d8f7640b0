package io.groupkeeper.zkprotocol;

/** A node as read: its body (bytes, as stored) and its stat. */
public record ZkNode(byte[] data, ZkStat stat) {}
