package io.groupkeeper.examples;

import io.groupkeeper.kafka.CoordinatedConsumer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * SIGTERM / Ctrl-C for a command's polling loop: the JVM's shutdown hook wakes the consumer up (its loop then ends with
 * a {@code WakeupException} and closes the consumer, committing and leaving) and holds the JVM until the loop says
 * {@link #left()}, at most 30 seconds.
 */
final class GracefulLeave {

    private final CountDownLatch left = new CountDownLatch(1);
    private final Thread hook;

    private GracefulLeave(Runnable wake, String threadName) {
        hook = new Thread(
                () -> {
                    wake.run();
                    try {
                        left.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                threadName);
    }

    static GracefulLeave onShutdown(CoordinatedConsumer<?, ?> consumer, String threadName) {
        return onShutdown(consumer::wakeup, threadName);
    }

    /** As above for a loop that {@code wake} ends (a listener container's: its stop, which drains in-flight work). */
    static GracefulLeave onShutdown(Runnable wake, String threadName) {
        GracefulLeave leave = new GracefulLeave(wake, threadName);
        Runtime.getRuntime().addShutdownHook(leave.hook);
        return leave;
    }

    /** The consumer is closed: a shutdown under way may go on; one that has not begun needs the hook no more. */
    void left() {
        left.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook is running and has just been released
        }
    }
}
