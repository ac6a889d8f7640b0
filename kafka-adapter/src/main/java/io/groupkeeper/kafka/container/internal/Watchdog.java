package io.groupkeeper.kafka.container.internal;

import io.groupkeeper.kafka.container.ContainerListener;
import io.groupkeeper.kafka.container.ContainerMetrics;
import io.groupkeeper.kafka.container.StuckHandler;
import io.groupkeeper.kafka.container.Ticker;
import io.groupkeeper.kafka.internal.KafkaClients;
import io.groupkeeper.log.internal.LogContext;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports handler calls that run longer than the limit: one WARN with the worker thread's stack per call, a counter
 * and a gauge, and {@link ContainerListener#handlerStuck}. It never interrupts or evicts anything: the worker keeps its
 * partitions (see docs/service.md on what a rebalance does meanwhile). Samples every worker every quarter of the
 * limit (at most 1 s) and keeps the time itself, so a call is noticed between the limit and the limit plus one period
 * after it started, and the workers pay no clock read per record.
 */
final class Watchdog implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Watchdog.class);

    private final String group;
    private final long limitNanos;
    private final Ticker ticker;
    private final ContainerMetrics metrics;
    private final ContainerListener listener;
    private final Function<InFlight, String> memberOf;
    private final List<InFlight> slots = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService timer;

    Watchdog(
            String group,
            Duration limit,
            Ticker ticker,
            ContainerMetrics metrics,
            ContainerListener listener,
            Function<InFlight, String> memberOf) {
        this(group, limit, ticker, metrics, listener, memberOf, KafkaClients.REAL);
    }

    /** {@code clients}: where its timer thread comes from ({@code REAL} but in the simulator). */
    Watchdog(
            String group,
            Duration limit,
            Ticker ticker,
            ContainerMetrics metrics,
            ContainerListener listener,
            Function<InFlight, String> memberOf,
            KafkaClients clients) {
        this.group = group;
        this.limitNanos = limit.toNanos();
        this.ticker = ticker;
        this.metrics = metrics;
        this.listener = listener;
        this.memberOf = memberOf;
        this.timer = clients.timer("groupkeeper-watchdog-" + group); // one daemon thread
        long period =
                Math.max(TimeUnit.MILLISECONDS.toNanos(10), Math.min(limitNanos / 4, TimeUnit.SECONDS.toNanos(1)));
        timer.scheduleWithFixedDelay(this::check, period, period, TimeUnit.NANOSECONDS);
    }

    void watch(InFlight slot) {
        slots.add(slot);
    }

    void check() {
        try {
            long now = ticker.nanoTime();
            for (InFlight s : slots) {
                long state = s.state();
                if ((state & 1) == 0) {
                    s.sampledState = state; // idle
                    continue;
                }
                if (state != s.sampledState) {
                    s.sampledState = state; // a call the watchdog had not seen yet: it started about now
                    s.sampledSince = now;
                    continue;
                }
                if (now - s.sampledSince > limitNanos && s.reportedState != state) {
                    // The worker writes where a call starts with plain stores before it moves the state on: read
                    // them, then the state again, and report only if the same call is still running (else they may
                    // be the next call's).
                    TopicPartition partition = s.partition();
                    long offset = s.offset();
                    VarHandle.loadLoadFence();
                    if (s.state() != state) {
                        continue;
                    }
                    s.reportedSince = s.sampledSince;
                    s.reportedState = state;
                    report(s, partition, offset, Duration.ofNanos(now - s.sampledSince));
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("watchdog check failed: {}", e.toString());
        }
    }

    private void report(InFlight s, TopicPartition partition, long offset, Duration running) {
        StackTraceElement[] stack = s.thread.getStackTrace();
        StuckHandler stuck = new StuckHandler(
                group, memberOf.apply(s), s.thread.getName(), partition, offset, running, Arrays.asList(stack));
        StringBuilder trace = new StringBuilder();
        for (StackTraceElement e : stack) {
            trace.append("\n\tat ").append(e);
        }
        try (LogContext.Scope ignored = LogContext.enter(group, stuck.member())) {
            reportLogged(stuck, s, partition, offset, running, trace);
        }
    }

    private void reportLogged(
            StuckHandler stuck,
            InFlight s,
            TopicPartition partition,
            long offset,
            Duration running,
            StringBuilder trace) {
        LOG.warn(
                "handler on {} at offset {} has been running for {} ms (watchdog limit {} ms); "
                        + "the partition stays owned and is not evicted. Thread {}:{}",
                partition,
                offset,
                running.toMillis(),
                Duration.ofNanos(limitNanos).toMillis(),
                s.thread.getName(),
                trace);
        metrics.handlerStuck(group);
        try {
            listener.handlerStuck(stuck);
        } catch (RuntimeException e) {
            LOG.warn("container listener threw on handlerStuck: {}", e.toString());
        }
    }

    /** Calls running past the limit right now (as of the last check). */
    List<StuckHandler> stuckNow() {
        long now = ticker.nanoTime();
        List<StuckHandler> out = new ArrayList<>();
        for (InFlight s : slots) {
            long state = s.state();
            if (state != s.reportedState) {
                continue;
            }
            long since = s.reportedSince;
            TopicPartition partition = s.partition();
            long offset = s.offset();
            VarHandle.loadLoadFence();
            if (s.state() != state) {
                continue; // the call ended meanwhile: partition and offset may already be the next call's
            }
            out.add(new StuckHandler(
                    group,
                    memberOf.apply(s),
                    s.thread.getName(),
                    partition,
                    offset,
                    Duration.ofNanos(now - since),
                    List.of()));
        }
        return out;
    }

    int stuckCount() {
        return stuckNow().size();
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
