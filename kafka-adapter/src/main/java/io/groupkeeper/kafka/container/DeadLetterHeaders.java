package io.groupkeeper.kafka.container;

/**
 * Headers the container adds to a dead-lettered record (values UTF-8 text), after the original record's own headers.
 * The record keeps its original key, value (raw bytes, also when it did not deserialize) and timestamp, and goes to the
 * same partition number of the dead-letter topic when that topic has it.
 */
public final class DeadLetterHeaders {
    public static final String ORIGINAL_TOPIC = "groupkeeper.dlt.original.topic";
    public static final String ORIGINAL_PARTITION = "groupkeeper.dlt.original.partition";
    public static final String ORIGINAL_OFFSET = "groupkeeper.dlt.original.offset";
    /** Epoch milliseconds. */
    public static final String ORIGINAL_TIMESTAMP = "groupkeeper.dlt.original.timestamp";
    public static final String ORIGINAL_TIMESTAMP_TYPE = "groupkeeper.dlt.original.timestamp.type";
    public static final String GROUP = "groupkeeper.dlt.group";
    public static final String EXCEPTION_CLASS = "groupkeeper.dlt.exception.class";
    public static final String EXCEPTION_MESSAGE = "groupkeeper.dlt.exception.message";
    /** The stack trace, cut to 8 KiB. */
    public static final String EXCEPTION_STACKTRACE = "groupkeeper.dlt.exception.stacktrace";
    /** Attempts made before dead-lettering (0 for a record that did not deserialize). */
    public static final String ATTEMPTS = "groupkeeper.dlt.attempts";

    private DeadLetterHeaders() {
    }
}
