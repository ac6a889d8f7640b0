package io.groupkeeper.embedded;

/** An embedded server failed to start or to do what was asked of it. */
public class EmbeddedServerException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public EmbeddedServerException(String message, Throwable cause) {
        super(message, cause);
    }

    public EmbeddedServerException(String message) {
        super(message);
    }
}
