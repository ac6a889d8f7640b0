package io.groupkeeper.zkprotocol;

/**
 * What one applied operation yields: the path (the created name, for a sequential node) and, for a create or a set,
 * the node's stat after it (null for a delete or a check).
 */
public record ZkResult(String path, ZkStat stat) {}
