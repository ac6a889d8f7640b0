package io.groupkeeper.status;

import java.util.OptionalLong;

/** A partition's status, the lag it was judged on (if known), and why, in words an operator can act on. */
public record PartitionStatus(LagStatus status, OptionalLong lag, String reason) {}
