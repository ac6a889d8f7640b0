package io.groupkeeper.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.kafka.internal.LaneBridge.Revoked;
import io.groupkeeper.spi.ConnectionEvent;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The lane's callbacks become events; a revocation waits for the polling thread (no Kafka, no store). */
class LaneBridgeTest {

    private static final SortedSet<TopicPartition> A0 = new TreeSet<>(java.util.List.of(new TopicPartition("a", 0)));

    private final AtomicInteger wakeups = new AtomicInteger();

    @Test
    void aRevocationReturnsOnlyOnceThePollingThreadServedIt() {
        LaneBridge bridge = bridge(Duration.ofMinutes(1));
        CompletableFuture<Void> lane = CompletableFuture.runAsync(() -> bridge.onPartitionsRevoked(A0));

        Revoked r = (Revoked) await().until(bridge::next, e -> e != null);
        assertThat(r.partitions()).isEqualTo(A0);
        await().until(wakeups::get, n -> n > 0); // the event is queued a moment before the wake-up
        assertThat(wakeups.get()).as("the polling thread was woken once").isEqualTo(1);
        assertThat(lane).isNotDone();

        r.served().complete(null);
        await().until(lane::isDone);
    }

    @Test
    void aRevocationStillWaitingWhenThePollingThreadStopsServingReturnsAtOnceAndLaterEventsAreDropped() {
        LaneBridge bridge = bridge(Duration.ofMinutes(1));
        CompletableFuture<Void> lane = CompletableFuture.runAsync(() -> bridge.onPartitionsRevoked(A0));
        await().until(() -> wakeups.get() == 1);

        bridge.stopServing();
        await().until(lane::isDone);

        bridge.onPartitionsAssigned(new TreeMap<>(java.util.Map.of(new TopicPartition("a", 1), OptionalLong.of(3))));
        bridge.onPartitionsLost(A0);
        bridge.onPartitionsRevoked(A0); // returns at once: nobody would serve it
        assertThat(bridge.next()).isNull();
    }

    @Test
    void aRevocationNobodyServesGivesUpAfterTheTimeoutEvenWhileTheConnectionIsDown() {
        LaneBridge bridge = bridge(Duration.ofMillis(300));
        bridge.stateChanged(ConnectionEvent.SUSPENDED);
        assertThat(bridge.connectionDown()).isTrue();
        assertThat(bridge.next()).isInstanceOf(LaneBridge.ConnectionDown.class);

        long start = System.nanoTime();
        bridge.onPartitionsRevoked(A0);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));

        bridge.stateChanged(ConnectionEvent.RECONNECTED);
        assertThat(bridge.connectionDown()).isFalse();
    }

    private LaneBridge bridge(Duration revocationTimeout) {
        LaneBridge bridge = new LaneBridge("g", () -> "m1", revocationTimeout);
        bridge.wakeUpWith(wakeups::incrementAndGet);
        return bridge;
    }
}
