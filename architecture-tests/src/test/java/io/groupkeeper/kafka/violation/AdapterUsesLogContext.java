package io.groupkeeper.kafka.violation;

/** Allowed: the Kafka adapter uses core's logging context, which core shares with it. */
public class AdapterUsesLogContext {
    io.groupkeeper.log.internal.LogContext context;
}
