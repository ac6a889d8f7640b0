package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.retry.RetryApp;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code @RetryableTopic} on the starter ({@code RetryTopics}): a failed record leaves its partition at once (the next
 * record is handled while it waits in {@code <topic>-retry}), its retry comes no earlier than its delay, a graceful
 * stop does not wait on a pending retry, and a restarted application still honours the due time it carries; an
 * excluded exception goes to the DLT at once, where the {@code @DltHandler} method is called.
 */
@ExtendWith(OutputCaptureExtension.class)
class RetryTopicIT {

    private static ConfigurableApplicationContext start(String topic, String group) {
        return start(topic, group, "4000");
    }

    private static ConfigurableApplicationContext start(String topic, String group, String delayMs) {
        return new SpringApplicationBuilder(RetryApp.class)
                .web(WebApplicationType.NONE)
                .properties(Map.of(
                        "app.delay",
                        delayMs,
                        "groupkeeper.zookeeper.connect",
                        SharedServers.get().zkConnectString(),
                        "spring.kafka.bootstrap-servers",
                        SharedServers.get().bootstrapServers(),
                        "spring.kafka.consumer.auto-offset-reset",
                        "earliest",
                        "groupkeeper.listener.stop-deadline",
                        "5s",
                        "app.topic",
                        topic,
                        "app.group",
                        group))
                .run();
    }

    @Test
    void aFailedRecordWaitsInItsRetryTopicWithoutBlockingItsPartitionOrAStop(CapturedOutput output) {
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
            assertThat(slow.count("listen", "ok-1"))
                    .as("the next record of the partition did not wait")
                    .isEqualTo(1);
            assertThat(slow.count("listen", "fail-1"))
                    .as("its retry is not due yet (4 s)")
                    .isEqualTo(1);
            assertThat(slow.count("listen", "bad-1"))
                    .as("excluded: no retry, DLT at once")
                    .isEqualTo(1);
            assertThat(slow.first("dlt", "bad-1", 0).topic()).isEqualTo(topic + "-dlt");

            long stopping = System.nanoTime();
            ctx.close(); // the retry container's partition is paused until the due time: the stop does not wait
            assertThat(Duration.ofNanos(System.nanoTime() - stopping))
                    .as("stop while a retry is pending")
                    .isLessThan(Duration.ofSeconds(4));
            assertThat(slow.count("listen", "fail-1")).isEqualTo(1);
        }
        try (var ctx = start(topic, group)) { // the same group again: the pending retry, still not before its time
            RetryApp.Slow slow = ctx.getBean(RetryApp.Slow.class);
            await().atMost(WAIT).until(() -> slow.count("dlt", "fail-1") == 1);
            RetryApp.Call retry = slow.first("listen", "fail-1", 0);
            assertThat(retry.topic()).isEqualTo(topic + "-retry");
            assertThat(Duration.ofNanos(retry.nanos() - firstAttempt.nanos()))
                    .as("not before the 4 s delay")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(3_998)); // due times are epoch millis
            assertThat(slow.first("dlt", "fail-1", 0).topic()).isEqualTo(topic + "-dlt");
            assertThat(slow.count("listen", "ok-1")).as("not delivered again").isZero();
        }
        // each wait for the due time paused the retry partition (KafkaBackoffException): DEBUG, as Spring logs it
        assertThat(output.getOut().lines().filter(l -> l.contains(" WARN ")))
                .as("no WARN for a scheduled retry")
                .noneMatch(l -> l.contains("not ready for consumption") || l.contains(topic + "-retry-0 stopped"));
    }

    /**
     * A second member joins the groups while a retry waits (10 s) in a paused partition of the first member's retry
     * container: the rebalance completes before the retry is due (each member then owns one of the retry topic's 2
     * partitions), and the record is retried once, by its owner, no earlier than its delay.
     */
    @Test
    void aRebalanceDoesNotWaitOnAPendingRetry() {
        String topic = SharedServers.topic(2);
        String group = SharedServers.name("rebalance");
        String retryId = group + "-retry";
        org.apache.kafka.common.TopicPartition waiting =
                new org.apache.kafka.common.TopicPartition(topic + "-retry", 0);
        try (var first = start(topic, group, "10000")) {
            RetryApp.Slow a = first.getBean(RetryApp.Slow.class);
            GroupKeeperContainers ca = first.getBean(GroupKeeperContainers.class);
            SharedServers.send(topic, 0, "fail-1");
            await().atMost(WAIT)
                    .until(() -> ca.container(retryId).stoppedPartitions().containsKey(waiting));
            RetryApp.Call firstAttempt = a.first("listen", "fail-1", 0);
            assertThat(owned(ca, retryId)).hasSize(2);
            try (var second = start(topic, group, "10000")) {
                RetryApp.Slow b = second.getBean(RetryApp.Slow.class);
                GroupKeeperContainers cb = second.getBean(GroupKeeperContainers.class);
                await().atMost(WAIT)
                        .until(() -> owned(ca, retryId).size() == 1
                                && owned(cb, retryId).size() == 1);
                long attemptsWhenBalanced = a.count("listen", "fail-1") + b.count("listen", "fail-1");
                assertThat(attemptsWhenBalanced)
                        .as("rebalanced while the retry was pending")
                        .isEqualTo(1);
                await().atMost(WAIT).until(() -> a.count("dlt", "fail-1") + b.count("dlt", "fail-1") == 1);
                RetryApp.Slow owner = owned(ca, retryId).contains(waiting) ? a : b;
                RetryApp.Call retry = owner.first("listen", "fail-1", owner == a ? 1 : 0);
                assertThat(retry.topic()).isEqualTo(topic + "-retry");
                assertThat(Duration.ofNanos(retry.nanos() - firstAttempt.nanos()))
                        .as("not before the 10 s delay")
                        .isGreaterThanOrEqualTo(Duration.ofMillis(9_998)); // due times are epoch millis
                assertThat(a.count("listen", "fail-1") + b.count("listen", "fail-1"))
                        .as("retried once")
                        .isEqualTo(2);
            }
        }
    }

    private static java.util.Set<org.apache.kafka.common.TopicPartition> owned(GroupKeeperContainers c, String id) {
        java.util.Set<org.apache.kafka.common.TopicPartition> out = new java.util.HashSet<>();
        c.container(id).workers().forEach(w -> out.addAll(w.owned()));
        return out;
    }

    /**
     * With {@code spring.kafka.listener.ack-mode=MANUAL}, Spring's default DLT handler (no {@code @DltHandler})
     * acknowledges what it logs: after a restart the dead letter is not logged again (before: it was, its partition
     * never committed).
     */
    @Test
    void inAManualAckModeTheDefaultDltHandlerAcknowledgesWhatItLogs(CapturedOutput output) {
        String topic = SharedServers.topic(1);
        String group = SharedServers.name("ackdlt");
        String firstDeadLetter = "Received message in dlt listener: " + topic + "-dlt-0@0";
        String secondDeadLetter = "Received message in dlt listener: " + topic + "-dlt-0@1";
        try (var ctx = startManual(topic, group)) {
            var acking = ctx.getBean(io.groupkeeper.spring.retryack.ManualAckRetryApp.Acking.class);
            SharedServers.send(topic, 0, "bad-1");
            SharedServers.send(topic, 0, "ok-1");
            await().atMost(WAIT)
                    .until(() -> output.getOut().contains(firstDeadLetter) && acking.received.contains("ok-1"));
        }
        try (var ctx = startManual(topic, group)) {
            SharedServers.send(topic, 0, "bad-2");
            await().atMost(WAIT).until(() -> output.getOut().contains(secondDeadLetter));
            var acking = ctx.getBean(io.groupkeeper.spring.retryack.ManualAckRetryApp.Acking.class);
            assertThat(acking.received)
                    .as("the main topic: committed past bad-1 with ok-1")
                    .containsExactly("bad-2");
        }
        assertThat(output.getOut().lines().filter(l -> l.contains(firstDeadLetter)))
                .as("the first dead letter logged once: acknowledged by the default DLT handler")
                .hasSize(1);
    }

    private static ConfigurableApplicationContext startManual(String topic, String group) {
        return new SpringApplicationBuilder(io.groupkeeper.spring.retryack.ManualAckRetryApp.class)
                .web(WebApplicationType.NONE)
                .properties(Map.of(
                        "groupkeeper.zookeeper.connect",
                        SharedServers.get().zkConnectString(),
                        "spring.kafka.bootstrap-servers",
                        SharedServers.get().bootstrapServers(),
                        "spring.kafka.consumer.auto-offset-reset",
                        "earliest",
                        "spring.kafka.listener.ack-mode",
                        "MANUAL",
                        "groupkeeper.listener.stop-deadline",
                        "5s",
                        "app.topic",
                        topic,
                        "app.group",
                        group))
                .run();
    }

    /** Boot's {@code spring.kafka.retry.topic.*} make a {@code RetryTopicConfiguration} bean: honoured as Spring does. */
    @Test
    void bootsRetryTopicPropertiesApplyAsToAKafkaListener() {
        String topic = SharedServers.topic(1);
        SharedServers.get().kafka().createTopic(topic + "-retry", 1); // Boot's bean does not create them (Spring's
        SharedServers.get().kafka().createTopic(topic + "-dlt", 1); // doNotAutoCreateRetryTopics): the user does
        try (var ctx = new SpringApplicationBuilder(io.groupkeeper.spring.retrybean.BeanFormApp.class)
                .web(WebApplicationType.NONE)
                .properties(Map.of(
                        "groupkeeper.zookeeper.connect",
                        SharedServers.get().zkConnectString(),
                        "spring.kafka.bootstrap-servers",
                        SharedServers.get().bootstrapServers(),
                        "spring.kafka.consumer.auto-offset-reset",
                        "earliest",
                        "groupkeeper.listener.stop-deadline",
                        "5s",
                        "spring.kafka.retry.topic.enabled",
                        "true",
                        "spring.kafka.retry.topic.attempts",
                        "3",
                        "spring.kafka.retry.topic.backoff.delay",
                        "200ms",
                        "app.topic",
                        topic,
                        "app.group",
                        SharedServers.name("bean")))
                .run()) {
            var plain = ctx.getBean(io.groupkeeper.spring.retrybean.BeanFormApp.Plain.class);
            SharedServers.send(topic, 0, "fail-1");
            SharedServers.send(topic, 0, "ok-1");
            await().atMost(WAIT)
                    .until(() -> plain.calls.stream()
                                    .filter(c -> c.startsWith("fail-1@"))
                                    .count()
                            == 3);
            assertThat(plain.calls)
                    .as("main topic, then Boot's retry topic (fixed delay: one topic, reused)")
                    .filteredOn(c -> c.startsWith("fail-1@"))
                    .containsExactly("fail-1@" + topic, "fail-1@" + topic + "-retry", "fail-1@" + topic + "-retry");
            assertThat(plain.calls).contains("ok-1@" + topic);
            var dead = read(topic + "-dlt");
            assertThat(new String(
                            dead.headers()
                                    .lastHeader("kafka_exception-cause-fqcn")
                                    .value(),
                            java.nio.charset.StandardCharsets.UTF_8))
                    .isEqualTo(IllegalStateException.class.getName());
            assertThat(java.nio.ByteBuffer.wrap(dead.headers()
                                    .lastHeader("retry_topic-attempts")
                                    .value())
                            .getInt())
                    .as("as Spring writes it: the attempts made + 1 (DifferentialIT: 6 after 5)")
                    .isEqualTo(4);
        }
    }

    private static org.apache.kafka.clients.consumer.ConsumerRecord<String, String> read(String topic) {
        try (var c = new org.apache.kafka.clients.consumer.KafkaConsumer<String, String>(
                Map.of(
                        "bootstrap.servers",
                        SharedServers.get().bootstrapServers(),
                        "group.id",
                        SharedServers.name("reader"),
                        "auto.offset.reset",
                        "earliest"),
                new org.apache.kafka.common.serialization.StringDeserializer(),
                new org.apache.kafka.common.serialization.StringDeserializer())) {
            c.subscribe(java.util.List.of(topic));
            java.util.List<org.apache.kafka.clients.consumer.ConsumerRecord<String, String>> out =
                    new java.util.ArrayList<>();
            await().atMost(WAIT).until(() -> {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
                return !out.isEmpty();
            });
            return out.get(0);
        }
    }
}
