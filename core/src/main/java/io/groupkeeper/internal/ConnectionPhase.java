package io.groupkeeper.internal;

import java.util.EnumSet;
import java.util.Set;

/**
 * Where the member's connection stands, as the member acts on it, with the transitions {@link ConnectionTracker}
 * allows. A reconnection takes the member back to {@link #CONNECTED} on its lane, once no later event is queued.
 *
 * <pre>
 *  CONNECTED --suspended--> SUSPENDED --lost--> LOST      (on the store's thread, at once)
 *  CONNECTED --lost-------------------------->  LOST
 *  SUSPENDED --reconnected--> CONNECTED                    (on the member's lane, if no later event came)
 *  LOST      --reconnected (a new session)--> CONNECTED
 * </pre>
 */
enum ConnectionPhase {

    /** Connected: the member processes its partitions. */
    CONNECTED,
    /** In doubt: the session may live on, but may end at any moment. Every held partition is stopped (I7). */
    SUSPENDED,
    /** The store gave the session up: once the service ends it, nothing of this session is left. */
    LOST;

    Set<ConnectionPhase> next() {
        return switch (this) {
            case CONNECTED -> EnumSet.of(SUSPENDED, LOST);
            case SUSPENDED -> EnumSet.of(LOST, CONNECTED);
            case LOST -> EnumSet.of(CONNECTED);
        };
    }

    boolean inDoubt() {
        return this != CONNECTED;
    }
}
