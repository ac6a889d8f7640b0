package io.groupkeeper.cli.violation;

/** Deliberate violation: the cli (not the Kafka adapter) uses core's logging context, {@code log.internal}. */
public class CliUsesLogContext {
    io.groupkeeper.log.internal.LogContext context;
}
