package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.retry.RetryApp;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code @RetryableTopic} on the starter ({@code RetryTopics}): a failed record leaves its partition at once (the next
 * record is handled while it waits in {@code <topic>-retry}), its retry comes no earlier than its delay, a graceful
 * stop does not wait on a pending retry, and a restarted application still honours the due time it carries; an
 * excluded exception goes to the DLT at once, where the {@code @DltHandler} method is called.
 */
class RetryTopicIT {

    private static ConfigurableApplicationContext start(String topic, String group) {
        return new SpringApplicationBuilder(RetryApp.class).web(WebApplicationType.NONE).properties(Map.of(
                "groupkeeper.zookeeper.connect", SharedServers.get().zkConnectString(),
                "spring.kafka.bootstrap-servers", SharedServers.get().bootstrapServers(),
                "spring.kafka.consumer.auto-offset-reset", "earliest",
                "groupkeeper.listener.stop-deadline", "5s",
                "app.topic", topic, "app.group", group)).run();
    }

    @Test
    void aFailedRecordWaitsInItsRetryTopicWithoutBlockingItsPartitionOrAStop() {
        String topic = SharedServers.topic(1);
        String group = SharedServers.name("retry");
        RetryApp.Call firstAttempt;
        try (var ctx = start(topic, group)) {
            RetryApp.Slow slow = ctx.getBean(RetryApp.Slow.class);
            SharedServers.send(topic, 0, "fail-1");
            SharedServers.send(topic, 0, "ok-1");
            SharedServers.send(topic, 0, "bad-1");
            await().atMost(WAIT).until(() -> slow.count("dlt", "bad-1") == 1);
            firstAttempt = slow.first("listen", "fail-1", 0);
            assertThat(slow.count("listen", "ok-1")).as("the next record of the partition did not wait").isEqualTo(1);
            assertThat(slow.count("listen", "fail-1")).as("its retry is not due yet (4 s)").isEqualTo(1);
            assertThat(slow.count("listen", "bad-1")).as("excluded: no retry, DLT at once").isEqualTo(1);
            assertThat(slow.first("dlt", "bad-1", 0).topic()).isEqualTo(topic + "-dlt");

            long stopping = System.nanoTime();
            ctx.close(); // the retry container's partition is paused until the due time: the stop does not wait
            assertThat(Duration.ofNanos(System.nanoTime() - stopping)).as("stop while a retry is pending")
                    .isLessThan(Duration.ofSeconds(4));
            assertThat(slow.count("listen", "fail-1")).isEqualTo(1);
        }
        try (var ctx = start(topic, group)) { // the same group again: the pending retry, still not before its time
            RetryApp.Slow slow = ctx.getBean(RetryApp.Slow.class);
            await().atMost(WAIT).until(() -> slow.count("dlt", "fail-1") == 1);
            RetryApp.Call retry = slow.first("listen", "fail-1", 0);
            assertThat(retry.topic()).isEqualTo(topic + "-retry");
            assertThat(Duration.ofNanos(retry.nanos() - firstAttempt.nanos())).as("not before the 4 s delay")
                    .isGreaterThanOrEqualTo(Duration.ofSeconds(4));
            assertThat(slow.first("dlt", "fail-1", 0).topic()).isEqualTo(topic + "-dlt");
            assertThat(slow.count("listen", "ok-1")).as("not delivered again").isZero();
        }
    }
}
