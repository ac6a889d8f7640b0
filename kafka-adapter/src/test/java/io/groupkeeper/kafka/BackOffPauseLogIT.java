package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.container.BackOffPause;
import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.ListenerContainer;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A handler's {@link BackOffPause} (a record not due yet, as the starter's retry topics throw for every scheduled
 * retry) stops its partition like any failure under the same action, but is no WARN: neither "handler failed" nor
 * "partition stopped". A real failure under the same action still logs both at WARN.
 */
class BackOffPauseLogIT extends ContainerTestSupport {

    static final class NotDueYet extends RuntimeException implements BackOffPause {
        NotDueYet(String message) {
            super(message);
        }
    }

    @Test
    void aScheduledPauseStopsThePartitionQuietlyAndARealFailureStillWarns() throws Exception {
        String topic = newTopic(2);
        String group = newName("g");
        GroupKeeper keeper = newKeeper();
        String dispatcher = "io.groupkeeper.kafka.container.internal.Dispatcher";
        String worker = "io.groupkeeper.kafka.container.internal.Worker";
        ListAppender<ILoggingEvent> handlerLog = captureWarnings(dispatcher);
        ListAppender<ILoggingEvent> partitionLog = captureWarnings(worker);
        try {
            AtomicBoolean due = new AtomicBoolean();
            Seen seen = new Seen();
            send(topic, 0, "later");
            send(topic, 1, "broken");
            ErrorAction stop = ErrorAction.retry(1, Backoff.none()).thenStopPartition();
            ListenerContainer<String, String> c = started(container(keeper, group, topic)
                    .errorPolicy(ErrorPolicy.builder()
                            .on(NotDueYet.class, stop)
                            .otherwise(stop)
                            .build())
                    .recordHandler(r -> {
                        if (r.value().equals("later") && !due.get()) {
                            throw new NotDueYet("retry of later is due in a while");
                        }
                        if (r.value().equals("broken")) {
                            throw new IllegalStateException("downstream refuses broken");
                        }
                        seen.records.add(r);
                    })
                    .build());
            TopicPartition p0 = new TopicPartition(topic, 0);
            TopicPartition p1 = new TopicPartition(topic, 1);
            await().atMost(WAIT).until(() -> c.stoppedPartitions().keySet().containsAll(List.of(p0, p1)));

            List<String> warnings = new java.util.ArrayList<>(warnings(handlerLog));
            warnings.addAll(warnings(partitionLog));
            assertThat(warnings)
                    .as("the real failure: handler failed, partition stopped")
                    .anySatisfy(w -> assertThat(w).contains("handler failed", "downstream refuses broken"))
                    .anySatisfy(w -> assertThat(w).contains("partition " + p1 + " stopped"));
            assertThat(warnings)
                    .as("the scheduled pause: no WARN")
                    .noneSatisfy(w -> assertThat(w).containsAnyOf("NotDueYet", "due in a while", p0 + " stopped"));
            assertThat(c.stoppedPartitions().get(p0).reason())
                    .startsWith("back-off: ")
                    .contains("due in a while");

            due.set(true);
            assertThat(c.resume(p0)).isTrue();
            await().atMost(WAIT).until(() -> seen.values().contains("later"));
        } finally {
            stopCapture(handlerLog, dispatcher);
            stopCapture(partitionLog, worker);
        }
    }
}
