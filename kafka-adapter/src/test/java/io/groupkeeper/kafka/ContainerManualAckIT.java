package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.HandlerContext;
import io.groupkeeper.kafka.container.ListenerContainer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * {@code manualAcks(true)}, Spring Kafka's manual ack modes: a partition is committed up to its last record
 * acknowledged + 1 (records before it with it, acknowledged or not), a record after it is not committed and runs again
 * after a restart; a nack runs the record again after its sleep, not counted as a failed attempt.
 */
class ContainerManualAckIT extends ContainerTestSupport {

    @Test
    void onlyWhatIsAcknowledgedIsCommittedAndANackRedeliversAfterItsSleepWithoutCountingAsAFailure() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        GroupKeeper keeper = newKeeper();
        send(topic, 0, "ack-0", "ack-1", "skip-2", "ack-3", "nack-4", "skip-5");
        Seen seen = new Seen();
        AtomicBoolean nacked = new AtomicBoolean();
        Map<String, Long> at = new ConcurrentHashMap<>();
        ErrorAction stop = ErrorAction.retry(1, Backoff.none()).thenStopPartition(); // a counted failure stops it
        ListenerContainer<String, String> first = started(container(keeper, group, topic)
                .manualAcks(true)
                .errorPolicy(ErrorPolicy.builder().otherwise(stop).build())
                .recordHandler(r -> {
                    seen.records.add(r);
                    at.merge(r.value(), System.nanoTime(), (a, b) -> b - a); // 2nd delivery: the time in between
                    if (r.value().startsWith("nack") && nacked.compareAndSet(false, true)) {
                        HandlerContext.nack(Duration.ofMillis(500));
                    } else if (!r.value().startsWith("skip")) {
                        HandlerContext.acknowledge();
                    }
                })
                .build());
        await().atMost(WAIT).until(() -> seen.values().size() == 7);
        assertThat(seen.values()).containsExactly("ack-0", "ack-1", "skip-2", "ack-3", "nack-4", "nack-4", "skip-5");
        assertThat(Duration.ofNanos(at.get("nack-4")))
                .as("redelivered after the nack's sleep")
                .isGreaterThanOrEqualTo(Duration.ofMillis(500));
        assertThat(first.stoppedPartitions()).as("a nack is no failure").isEmpty();
        awaitStored(group, topic, 0, 5); // nack-4 acknowledged at its second call; skip-5 never
        first.stop(Duration.ofSeconds(30));
        assertThat(storedOffset(group, topic, 0))
                .as("the final commit too stops at the last ack")
                .isEqualTo(OptionalLong.of(5));

        Seen again = new Seen();
        started(container(keeper, group, topic)
                .manualAcks(true)
                .recordHandler(r -> {
                    again.records.add(r);
                    HandlerContext.acknowledge();
                })
                .build());
        await().atMost(WAIT).until(() -> again.values().contains("skip-5"));
        awaitStored(group, topic, 0, 6);
        assertThat(again.values())
                .as("after a restart: what was not acknowledged, and only that (skip-2 was " + "committed with ack-3)")
                .isEqualTo(List.of("skip-5"));
    }

    @Test
    void withoutManualAcksAcknowledgingIsRefusedInTheHandler() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        send(topic, 0, "one");
        Seen seen = new Seen();
        java.util.concurrent.atomic.AtomicReference<Throwable> thrown =
                new java.util.concurrent.atomic.AtomicReference<>();
        started(container(newKeeper(), group, topic)
                .recordHandler(r -> {
                    try {
                        HandlerContext.acknowledge();
                    } catch (IllegalStateException e) {
                        thrown.set(e);
                    }
                    seen.records.add(r);
                })
                .build());
        await().atMost(WAIT).until(() -> seen.values().contains("one"));
        assertThat(thrown.get())
                .hasMessageContaining("manual acknowledgements")
                .hasMessageContaining("manualAcks(true)");
        awaitStored(group, topic, 0, 1);
    }
}
