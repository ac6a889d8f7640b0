package io.groupkeeper;

/** A failure of groupkeeper that the caller should see: a bad state, an unusable store, a refused operation. */
public class GroupKeeperException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public GroupKeeperException(String message) {
        super(message);
    }

    public GroupKeeperException(String message, Throwable cause) {
        super(message, cause);
    }
}
