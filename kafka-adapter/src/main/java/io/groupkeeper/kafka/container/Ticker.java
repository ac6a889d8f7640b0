package io.groupkeeper.kafka.container;

/** A nanosecond time source for the processing watchdog; injectable for tests. */
@FunctionalInterface
public interface Ticker {
    long nanoTime();

    static Ticker system() {
        return System::nanoTime;
    }
}
