package io.groupkeeper.kafka.container.internal;

import java.time.Duration;

/**
 * The outcome of a handler call whose handler nacked its record ({@code HandlerContext.nack}): the record runs again
 * after {@code sleep}; not a failure (no attempt counted, no stack trace).
 */
final class Redelivery extends RuntimeException {
    final Duration sleep;

    Redelivery(Duration sleep) {
        super("nack, redelivered after " + sleep.toMillis() + " ms", null, false, false);
        this.sleep = sleep;
    }
}
