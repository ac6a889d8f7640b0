package io.groupkeeper.spi.internal;

/** The outcome of trying to take ownership of a partition. */
public sealed interface ClaimResult {

    /**
     * This member now owns the partition; {@code offset} is what was committed, at the version it now has, and
     * {@code lease} names the session the claim was made in and its fencing token.
     */
    record Claimed(OffsetSnapshot offset, Lease lease) implements ClaimResult {}

    /** Another member still holds it; the store will run the caller's hook once it is released. */
    record Busy(String ownerMemberId) implements ClaimResult {}

    /** The partition cannot be claimed because a node is corrupt; the hook runs when that node changes. */
    record Blocked(String problem) implements ClaimResult {}
}
