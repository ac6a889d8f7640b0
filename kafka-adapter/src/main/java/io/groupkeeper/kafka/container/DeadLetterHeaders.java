package io.groupkeeper.kafka.container;

/**
 * Headers the container adds to a dead-lettered record, after the original record's own headers. The record keeps its
 * original key and value (raw bytes, also when it did not deserialize) and goes to the same partition number of the
 * dead-letter topic when that topic has it.
 *
 * <p><b>Spring for Apache Kafka's format</b> ({@code KafkaHeaders.DLT_*}, as its {@code DeadLetterPublishingRecoverer}
 * writes them), so dead-letter consumers and tools written for Spring read them unchanged: topic, timestamp type,
 * group, class names, message and stack trace are UTF-8 text; partition is a 4-byte and offset and timestamp are
 * 8-byte big-endian binary numbers ({@code ByteBuffer.wrap(value).getInt()} / {@code getLong()}). The original headers
 * are appended (a record dead-lettered twice carries both sets, the last one is the latest), the exception headers
 * replace earlier ones, as Spring does.
 *
 * <p><b>groupkeeper's earlier format</b> ({@code groupkeeper.dlt.*}, every value UTF-8 text) is still written beside
 * Spring's for this release, so consumers keyed on it keep working while they move; it will be dropped in the next
 * one. {@link #ATTEMPTS} has no Spring counterpart and stays.
 */
public final class DeadLetterHeaders {
    /** Spring's {@code KafkaHeaders.DLT_ORIGINAL_TOPIC}: UTF-8. */
    public static final String DLT_ORIGINAL_TOPIC = "kafka_dlt-original-topic";
    /** Spring's {@code KafkaHeaders.DLT_ORIGINAL_PARTITION}: 4-byte big-endian int. */
    public static final String DLT_ORIGINAL_PARTITION = "kafka_dlt-original-partition";
    /** Spring's {@code KafkaHeaders.DLT_ORIGINAL_OFFSET}: 8-byte big-endian long. */
    public static final String DLT_ORIGINAL_OFFSET = "kafka_dlt-original-offset";
    /** Spring's {@code KafkaHeaders.DLT_ORIGINAL_TIMESTAMP}: 8-byte big-endian long, epoch milliseconds. */
    public static final String DLT_ORIGINAL_TIMESTAMP = "kafka_dlt-original-timestamp";
    /** Spring's {@code KafkaHeaders.DLT_ORIGINAL_TIMESTAMP_TYPE}: {@code CreateTime} or {@code LogAppendTime}. */
    public static final String DLT_ORIGINAL_TIMESTAMP_TYPE = "kafka_dlt-original-timestamp-type";
    /** Spring's {@code KafkaHeaders.DLT_ORIGINAL_CONSUMER_GROUP}: UTF-8. */
    public static final String DLT_ORIGINAL_CONSUMER_GROUP = "kafka_dlt-original-consumer-group";
    /** Spring's {@code KafkaHeaders.DLT_EXCEPTION_FQCN}: the class of the exception the handler threw. */
    public static final String DLT_EXCEPTION_FQCN = "kafka_dlt-exception-fqcn";
    /**
     * Spring's {@code KafkaHeaders.DLT_EXCEPTION_CAUSE_FQCN}: the class of its root cause (the exception itself when it
     * has no cause: Spring's is always its listener wrapper's root cause, the method's exception at least).
     */
    public static final String DLT_EXCEPTION_CAUSE_FQCN = "kafka_dlt-exception-cause-fqcn";
    /** Spring's {@code KafkaHeaders.DLT_EXCEPTION_MESSAGE}: the message, then {@code "; "} and the root cause's. */
    public static final String DLT_EXCEPTION_MESSAGE = "kafka_dlt-exception-message";
    /** Spring's {@code KafkaHeaders.DLT_EXCEPTION_STACKTRACE}: the whole stack trace. */
    public static final String DLT_EXCEPTION_STACKTRACE = "kafka_dlt-exception-stacktrace";

    /** Attempts made before dead-lettering (0 for a record that did not deserialize); UTF-8 digits. */
    public static final String ATTEMPTS = "groupkeeper.dlt.attempts";

    // groupkeeper's earlier format, written beside Spring's for one release (all UTF-8 text).
    /** Earlier format, dropped next release: use {@link #DLT_ORIGINAL_TOPIC}. */
    public static final String ORIGINAL_TOPIC = "groupkeeper.dlt.original.topic";
    /** Earlier format, dropped next release: use {@link #DLT_ORIGINAL_PARTITION}. */
    public static final String ORIGINAL_PARTITION = "groupkeeper.dlt.original.partition";
    /** Earlier format, dropped next release: use {@link #DLT_ORIGINAL_OFFSET}. */
    public static final String ORIGINAL_OFFSET = "groupkeeper.dlt.original.offset";
    /** Epoch milliseconds. Earlier format, dropped next release: use {@link #DLT_ORIGINAL_TIMESTAMP}. */
    public static final String ORIGINAL_TIMESTAMP = "groupkeeper.dlt.original.timestamp";
    /** Earlier format, dropped next release: use {@link #DLT_ORIGINAL_TIMESTAMP_TYPE}. */
    public static final String ORIGINAL_TIMESTAMP_TYPE = "groupkeeper.dlt.original.timestamp.type";
    /** Earlier format, dropped next release: use {@link #DLT_ORIGINAL_CONSUMER_GROUP}. */
    public static final String GROUP = "groupkeeper.dlt.group";
    /** Earlier format, dropped next release: use {@link #DLT_EXCEPTION_FQCN}. */
    public static final String EXCEPTION_CLASS = "groupkeeper.dlt.exception.class";
    /** Earlier format, dropped next release: use {@link #DLT_EXCEPTION_MESSAGE}. */
    public static final String EXCEPTION_MESSAGE = "groupkeeper.dlt.exception.message";
    /** The stack trace, cut to 8 KiB. Earlier format, dropped next release: use {@link #DLT_EXCEPTION_STACKTRACE}. */
    public static final String EXCEPTION_STACKTRACE = "groupkeeper.dlt.exception.stacktrace";

    private DeadLetterHeaders() {}
}
