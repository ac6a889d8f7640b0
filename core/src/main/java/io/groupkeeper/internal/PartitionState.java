package io.groupkeeper.internal;

import java.util.EnumSet;
import java.util.Set;

/**
 * Where one partition stands for this member, with the transitions {@link PartitionTable} allows. A partition that
 * is in none of these states is neither wanted nor possibly held by this member.
 *
 * <pre>
 *            claimed                 target moved away        released
 *  WAITING ----------> OWNED -----------------------> REVOKING ---------> (gone)
 *     |  ^               |  ^                            |
 *     |  | not held      |  | re-confirmed               | release failed
 *     v  |               v  |                            v
 *   (gone)            STOPPED <---------------------------+
 *                        |  released, or proven not held
 *                        v
 *                     (gone)
 * </pre>
 *
 * <p>The rule that makes a leaked owner node impossible: every state in which this member's owner node may exist
 * ({@link #holdsOwnerNode()}) is left for "gone" only with a proof — the owner node was released, or the store showed
 * it is not this member's in the lease's session. Anything else goes to {@link #STOPPED}, which the reconciler
 * re-confirms while the partition is wanted and releases once it is not.
 */
enum PartitionState {

    /** Wanted by the target; not held: the claim is to come, or waits for the previous owner or a repaired node. */
    WAITING,
    /** Held and processed by user code. */
    OWNED,
    /** Held; the revocation callback runs (user code stops and hands over final offsets), the release follows. */
    REVOKING,
    /**
     * Not processed; the owner node may still be this member's: the connection was in doubt, a claim's outcome is
     * unknown, a release failed, or the offset node turned out corrupt. Re-confirmed by a claim while wanted,
     * released when not; one holding a final offset handed over by its revocation is released with it first, wanted
     * or not, and then claimed again if wanted.
     */
    STOPPED;

    boolean holdsOwnerNode() {
        return this != WAITING;
    }

    Set<PartitionState> next() {
        return switch (this) {
            case WAITING -> EnumSet.of(OWNED, STOPPED);
            case OWNED -> EnumSet.of(REVOKING, STOPPED);
            case REVOKING -> EnumSet.of(STOPPED);
            case STOPPED -> EnumSet.of(OWNED, WAITING);
        };
    }
}
