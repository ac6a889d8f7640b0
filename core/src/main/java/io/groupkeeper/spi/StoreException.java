package io.groupkeeper.spi;

/** A failure of the backing store that the caller cannot fix by retrying the same call at once. */
public class StoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StoreException(String message) {
        super(message);
    }

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
