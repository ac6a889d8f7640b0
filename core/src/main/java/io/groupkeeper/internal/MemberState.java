package io.groupkeeper.internal;

import java.util.EnumSet;
import java.util.Set;

/**
 * Where a member stands in its life, with the transitions {@link MemberLifecycle} allows.
 *
 * <pre>
 *            start()           id taken              registered, elected, first step
 *  LATENT ----------> JOINING ---------> REGISTERING --------------------------------> JOINED
 *    |                  |   \                 |                                          |
 *    | close()          |    \ close(), or    | close(), or a failed start               | close()
 *    |                  |     \ a failed      v                                          |
 *    |                  |      \ start -> LEAVING <--------------------------------------+
 *    |                  | a failed start      |  the leave is done (partitions released, member node removed)
 *    v                  v                     v
 *  CLOSED <-------------+-------------------- CLOSED
 * </pre>
 *
 * <p>What the join has done is the state itself: in {@link #REGISTERING} the member holds its id in its keeper (a
 * member node of that id in this session is its own, so a failed start must leave to remove it) and has sent the
 * group check, so a registration tried again only registers; only in {@link #JOINED} does a reconnection re-register
 * the member and step. A member that never held its id has nothing to leave: a failed start goes from
 * {@link #JOINING} to {@link #CLOSED}.
 */
enum MemberState {

    /** Built, not started. */
    LATENT,
    /** Started: the join runs on the member's lane; the id is not yet taken (a predecessor may still hold it). */
    JOINING,
    /** The id is taken in the keeper and the group check sent; the member node's registration is under way. */
    REGISTERING,
    /** Registered, in the leader election, following its target. */
    JOINED,
    /** Closing: the leave ({@link MemberLeave}) revokes, releases and removes the member node. */
    LEAVING,
    /** Done: nothing of the member is left in the store (or its session's end removes it). */
    CLOSED;

    Set<MemberState> next() {
        return switch (this) {
            case LATENT -> EnumSet.of(JOINING, CLOSED);
            case JOINING -> EnumSet.of(REGISTERING, LEAVING, CLOSED);
            case REGISTERING -> EnumSet.of(JOINED, LEAVING);
            case JOINED -> EnumSet.of(LEAVING);
            case LEAVING -> EnumSet.of(CLOSED);
            case CLOSED -> EnumSet.noneOf(MemberState.class);
        };
    }

    /** Started and not closing: the member acts on its target and its connection. */
    boolean isActive() {
        return this == JOINING || this == REGISTERING || this == JOINED;
    }

    /** The member holds its id in its keeper (or did, while it leaves). */
    boolean holdsId() {
        return this == REGISTERING || this == JOINED;
    }
}
