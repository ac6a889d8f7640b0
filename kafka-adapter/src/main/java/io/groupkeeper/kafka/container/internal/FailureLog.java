package io.groupkeeper.kafka.container.internal;

import io.groupkeeper.kafka.container.BackOffPause;
import io.groupkeeper.kafka.container.Ticker;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WARN for failed handler calls, rate-limited per worker: the first failure logs at once, later ones at most once
 * per {@link #INTERVAL_NANOS}, saying how many failed since the last line. So a handler that fails on every record (a
 * downstream outage, a bad deployment) is seen in the log even while its records are retried or dead-lettered one by
 * one, without a line per record. Each failed attempt also counts in {@code groupkeeper.container.handler.failures}.
 * Worker thread only.
 */
final class FailureLog {

    /**
     * The logger of the handler calls' failures, recoveries and stops (this class's, {@link ProgressDispatch}'s and
     * {@link SerialCalls}'): named after the class that once ran them all, so operators' filters and alerts on it keep
     * working.
     */
    static final String LOGGER = "io.groupkeeper.kafka.container.internal.Dispatcher";

    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);
    /** At most one WARN per worker this often (10 s). */
    static final long INTERVAL_NANOS = 10_000_000_000L;

    private final Ticker ticker;
    private long lastNanos;
    private boolean logged;
    private long suppressed;

    FailureLog(Ticker ticker) {
        this.ticker = ticker;
    }

    /** A handler call at {@code offset} of {@code tp} failed (attempt {@code attempt} of {@code max}). */
    void failed(TopicPartition tp, long offset, int attempt, int max, Throwable failure) {
        if (failure instanceof BackOffPause) {
            LOG.debug("handler paused at {} offset {}: {}", tp, offset, failure.toString());
            return;
        }
        long now = ticker.nanoTime();
        if (logged && now - lastNanos < INTERVAL_NANOS) {
            suppressed++;
            return;
        }
        String since =
                suppressed == 0 ? "" : " (" + suppressed + " more failed handler calls since the last such line)";
        LOG.warn(
                "handler failed at {} offset {} (attempt {} of {}): {}{}",
                tp,
                offset,
                attempt,
                max,
                failure.toString(),
                since);
        logged = true;
        lastNanos = now;
        suppressed = 0;
    }

    private static final String BACK_OFF = "back-off: ";

    /** The reason of a partition stopped by {@code failure}; {@link #isBackOff} tells a {@code BackOffPause}'s. */
    static String reason(Throwable failure) {
        return (failure instanceof BackOffPause ? BACK_OFF : "") + failure;
    }

    static boolean isBackOff(String reason) {
        return reason.startsWith(BACK_OFF);
    }
}
