package io.groupkeeper.spi.internal;

/**
 * What one successful claim of a partition proves. {@code session} is the store session the claim was made in: a
 * write prepared under it (a commit, a release) must never take effect under another session, whatever was deleted
 * and created meanwhile. {@code fencingToken} grows with every change of hands of the partition and never repeats
 * (ZooKeeper: the claim transaction's zxid), so a downstream sink can refuse a writer whose token is older than one it
 * has already seen.
 */
public record Lease(long session, long fencingToken) {}
