package io.groupkeeper.spi;

/** Another live session already registered this member id (for a static member: this instance id). */
public class MemberIdInUseException extends StoreException {

    private static final long serialVersionUID = 1L;

    public MemberIdInUseException(String message) {
        super(message);
    }
}
