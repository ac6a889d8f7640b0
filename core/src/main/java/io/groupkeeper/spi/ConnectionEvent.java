package io.groupkeeper.spi;

/**
 * Connection state as the protocol needs it. {@link #SUSPENDED} means the session may still be alive but can
 * expire at any moment: ownership must be treated as lost now (invariant I7). {@link #RECONNECTED} carries whether
 * the session survived; if it did not, every ephemeral node of the old session is gone.
 */
public enum ConnectionEvent {
    CONNECTED,
    SUSPENDED,
    /** Reconnected with the same session: ephemeral nodes survived. */
    RECONNECTED,
    /** Reconnected with a new session: the old session's ephemeral nodes are gone (or going). */
    RECONNECTED_NEW_SESSION,
    /** The session is lost (expired, or presumed expired after the session timeout). */
    LOST;

    /** Whether the store has a connection after this event (CONNECTED or either kind of reconnection). */
    public boolean isConnected() {
        return this != SUSPENDED && this != LOST;
    }

    /** Whether this event follows a loss of the connection: what was watched may have changed unseen meanwhile. */
    public boolean isReconnection() {
        return this == RECONNECTED || this == RECONNECTED_NEW_SESSION;
    }
}
