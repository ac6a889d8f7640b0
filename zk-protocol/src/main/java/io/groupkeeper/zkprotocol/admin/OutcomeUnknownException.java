package io.groupkeeper.zkprotocol.admin;

/**
 * A write whose reply was lost (the connection dropped or the session ended after the transaction was sent) and whose
 * nodes, read again, do not tell whether it was applied. Unlike every other {@link AdminException}, something may have
 * been written: the operator must look (export the offsets, or plan the operation again without executing it) before
 * running it again, since a relative reset run twice applies twice.
 */
public final class OutcomeUnknownException extends AdminException {

    private static final long serialVersionUID = 1L;

    public OutcomeUnknownException(String message, Throwable cause) {
        super(message, cause);
    }
}
