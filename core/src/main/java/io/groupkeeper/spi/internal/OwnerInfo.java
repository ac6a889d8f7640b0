package io.groupkeeper.spi.internal;

import java.time.Instant;

/** Who holds a partition: the owner node's body, and whether it belongs to this store's current session. */
public record OwnerInfo(String memberId, long generation, Instant since, boolean currentSession) {}
