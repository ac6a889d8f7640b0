package io.groupkeeper.kafka.container;

import java.time.Duration;

/**
 * Waits a retry backoff. The default waits on the worker's stop signal, so {@code stop()} cuts a backoff short (the
 * record is then handed back, not recovered). Tests inject one that records the waits and returns at once.
 */
@FunctionalInterface
public interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
}
