package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.BatchFailedException;
import io.groupkeeper.kafka.container.ContainerState;
import io.groupkeeper.kafka.container.DeadLetterHeaders;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.ListenerContainer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Issue 36's container defects, each on real ZooKeeper + Kafka. */
class ContainerDefectsIT extends ContainerTestSupport {

    /** Defect 1: a handler that restores the interrupt flag does not end its worker silently. */
    @Test
    void aHandlerThatRestoresTheInterruptFlagDoesNotStopTheWorker() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        GroupKeeper keeper = newKeeper();
        Seen seen = new Seen();
        AtomicInteger calls = new AtomicInteger();
        send(topic, 0, "a", "b");
        ListenerContainer<String, String> c = started(container(keeper, group, topic)
                .errorPolicy(ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(2, Backoff.fixed(Duration.ofMillis(20)))
                                .thenDeadLetter())
                        .build())
                .recordHandler(r -> {
                    if (r.value().equals("a") && calls.incrementAndGet() == 1) {
                        Thread.currentThread().interrupt(); // as after catching an InterruptedException
                        throw new IllegalStateException("downstream call interrupted");
                    }
                    seen.records.add(r);
                })
                .build());

        awaitStored(group, topic, 0, 2); // the retry's backoff waited; both records done
        assertThat(seen.values()).containsExactly("a", "b");
        assertThat(c.state()).isEqualTo(ContainerState.RUNNING);
    }

    /** Defect 3: after a BatchFailedException names a later record, that record gets every attempt configured. */
    @Test
    void aBatchFailureNamingALaterRecordStartsThatRecordsAttemptsAtOne() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        GroupKeeper keeper = newKeeper();
        AtomicInteger calls = new AtomicInteger();
        AtomicInteger poisonAttempts = new AtomicInteger();
        send(topic, 0, "a", "b", "poison", "c");
        started(container(keeper, group, topic)
                .errorPolicy(ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(3, Backoff.fixed(Duration.ofMillis(10)))
                                .thenDeadLetter())
                        .build())
                .sleeper(d -> {})
                .batchHandler(batch -> {
                    if (calls.incrementAndGet() == 1) { // the first record fails once, transiently
                        throw new BatchFailedException(0, new IllegalStateException("transient"));
                    }
                    for (int i = 0; i < batch.size(); i++) {
                        if (batch.get(i).value().equals("poison")) {
                            poisonAttempts.incrementAndGet();
                            throw new BatchFailedException(i, new IllegalArgumentException("bad amount"));
                        }
                    }
                })
                .build());

        ConsumerRecord<String, String> dead = readAll(topic + "-dlt", 1).get(0);
        assertThat(dead.value()).isEqualTo("poison");
        assertThat(header(dead, DeadLetterHeaders.ATTEMPTS)).isEqualTo("3");
        assertThat(poisonAttempts).hasValue(3);
        awaitStored(group, topic, 0, 4);
    }

    /** A consumer interceptor, which a producer's constructor would refuse. */
    public static final class CountingInterceptor implements ConsumerInterceptor<Object, Object> {
        static final AtomicInteger SEEN = new AtomicInteger();

        @Override
        public ConsumerRecords<Object, Object> onConsume(ConsumerRecords<Object, Object> records) {
            SEEN.addAndGet(records.count());
            return records;
        }

        @Override
        public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {}

        @Override
        public void close() {}

        @Override
        public void configure(Map<String, ?> configs) {}
    }

    /** Defect 4: a consumer's interceptor.classes is not handed to the dead-letter producer. */
    @Test
    void aConsumerInterceptorDoesNotStopAContainerThatDeadLettersFromStarting() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        GroupKeeper keeper = newKeeper();
        send(topic, 0, "poison", "b");
        Seen seen = new Seen();
        ListenerContainer<String, String> c = started(container(keeper, group, topic)
                .kafkaProperty("interceptor.classes", CountingInterceptor.class.getName())
                .errorPolicy(ErrorPolicy.builder()
                        .otherwise(ErrorAction.deadLetter())
                        .build())
                .recordHandler(r -> {
                    if (r.value().equals("poison")) {
                        throw new IllegalStateException("poison");
                    }
                    seen.records.add(r);
                })
                .build());

        assertThat(readAll(topic + "-dlt", 1).get(0).value()).isEqualTo("poison");
        awaitStored(group, topic, 0, 2);
        assertThat(seen.values()).containsExactly("b");
        assertThat(CountingInterceptor.SEEN.get())
                .as("the consumer's interceptor runs")
                .isGreaterThanOrEqualTo(2);
        assertThat(c.state()).isEqualTo(ContainerState.RUNNING);
    }

    /**
     * Defects 10 and 11: with nothing said about dead letters, the default {@code <topic>-dlt} is created at start with
     * the source's partition count; a dead-letter topic the user named must exist.
     */
    @Test
    void theDefaultDeadLetterTopicIsNamedAsSpringKafkasAndCreatedAtStartANamedOneMustExist() throws Exception {
        String topic = newTopic(3);
        GroupKeeper keeper = newKeeper();
        ListenerContainer<String, String> c = started(ListenerContainer.<String, String>builder(keeper)
                .group(newName("g"))
                .topics(topic)
                .kafkaProperty("bootstrap.servers", servers.bootstrapServers())
                .deserializers(
                        new org.apache.kafka.common.serialization.StringDeserializer(),
                        new org.apache.kafka.common.serialization.StringDeserializer())
                .recordHandler(r -> {})
                .build());
        assertThat(c.state()).isEqualTo(ContainerState.RUNNING);
        assertThat(admin.describeTopics(java.util.List.of(topic + "-dlt"))
                        .allTopicNames()
                        .get()
                        .get(topic + "-dlt")
                        .partitions())
                .hasSize(3);

        ListenerContainer<String, String> named = ListenerContainer.<String, String>builder(keeper)
                .group(newName("g"))
                .topics(topic)
                .kafkaProperty("bootstrap.servers", servers.bootstrapServers())
                .deserializers(
                        new org.apache.kafka.common.serialization.StringDeserializer(),
                        new org.apache.kafka.common.serialization.StringDeserializer())
                .deadLetterTopic(topic + "-failures")
                .recordHandler(r -> {})
                .build();
        toClose.add(named);
        org.assertj.core.api.Assertions.assertThatThrownBy(named::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("dead-letter topic(s) [" + topic + "-failures] do not exist");
    }

    /** A String deserializer that records the threads it ran on and whether it was closed. */
    static final class Tracking implements org.apache.kafka.common.serialization.Deserializer<String> {
        final java.util.Set<String> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
        final AtomicInteger closed = new AtomicInteger();

        @Override
        public String deserialize(String topic, byte[] data) {
            threads.add(Thread.currentThread().getName());
            return data == null ? null : new String(data, java.nio.charset.StandardCharsets.UTF_8);
        }

        @Override
        public void close() {
            closed.incrementAndGet();
        }
    }

    /** Defect 5: one deserializer pair per worker from suppliers, each used by its worker alone and closed with it. */
    @Test
    void eachWorkerHasItsOwnDeserializersClosedWhenItStops() throws Exception {
        String topic = newTopic(4);
        String group = newName("g");
        java.util.List<Tracking> made = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.function.Supplier<org.apache.kafka.common.serialization.Deserializer<String>> supplier = () -> {
            Tracking t = new Tracking();
            made.add(t);
            return t;
        };
        Seen seen = new Seen();
        ListenerContainer<String, String> c = started(container(newKeeper(), group, topic)
                .deserializers(supplier, supplier)
                .concurrency(2)
                .recordHandler(seen.records::add)
                .build());
        await().atMost(WAIT)
                .until(() -> c.workers().stream().allMatch(w -> w.owned().size() == 2));
        for (int p = 0; p < 4; p++) {
            send(topic, p, "v" + p);
        }
        await().atMost(WAIT).until(() -> seen.records.size() == 4);
        assertThat(made).hasSize(4); // a key and a value deserializer for each of the two workers
        assertThat(made).allSatisfy(t -> assertThat(t.threads).hasSizeLessThanOrEqualTo(1));
        assertThat(made.stream().flatMap(t -> t.threads.stream()).distinct()).hasSize(2);
        assertThat(made).allSatisfy(t -> assertThat(t.closed).hasValue(0));
        assertThat(c.stop(Duration.ofSeconds(20))).isTrue();
        assertThat(made).allSatisfy(t -> assertThat(t.closed).as("closed once").hasValue(1));
    }

    /** Defect 5: deserializer instances given to the builder are shared, and closed once when the container stops. */
    @Test
    void sharedDeserializerInstancesAreClosedOnceWhenTheContainerStops() throws Exception {
        String topic = newTopic(2);
        Tracking key = new Tracking();
        Tracking value = new Tracking();
        ListenerContainer<String, String> c = started(container(newKeeper(), newName("g"), topic)
                .deserializers(key, value)
                .concurrency(2)
                .recordHandler(r -> {})
                .build());
        assertThat(c.stop(Duration.ofSeconds(20))).isTrue();
        assertThat(key.closed).hasValue(1);
        assertThat(value.closed).hasValue(1);
    }

    /**
     * Defect 7: with an instance id, each worker is its own static member ({@code <id>-<n>}) and has its own client id;
     * two containers of one group keep a gauge each, and stopping one leaves the other's.
     */
    @Test
    void workersHaveTheirOwnInstanceAndClientIdsAndTwoContainersOfOneGroupKeepTheirGauges() throws Exception {
        String topic = newTopic(4);
        String group = newName("g");
        GroupKeeper keeper = newKeeper();
        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        var metrics = new io.groupkeeper.kafka.container.MicrometerContainerMetrics(registry);
        String clientId = newName("cid");
        ListenerContainer<String, String> a = started(container(keeper, group, topic)
                .id("a")
                .instanceId("ia")
                .kafkaProperty("client.id", clientId)
                .concurrency(2)
                .metrics(metrics)
                .recordHandler(r -> {})
                .build());
        ListenerContainer<String, String> b = started(container(keeper, group, topic)
                .id("b")
                .metrics(metrics)
                .recordHandler(r -> {})
                .build());

        await().atMost(WAIT)
                .until(() -> a.workers().stream()
                                .allMatch(w -> w.running() && !w.owned().isEmpty())
                        && b.workers().stream()
                                .allMatch(w -> w.running() && !w.owned().isEmpty()));
        assertThat(a.workers())
                .extracting(io.groupkeeper.kafka.container.WorkerStatus::member)
                .containsExactlyInAnyOrder("ia-0", "ia-1"); // a static member's id is its instance id
        javax.management.MBeanServer jmx = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        for (String id : java.util.List.of(clientId + "-0", clientId + "-1")) {
            assertThat(jmx.isRegistered(new javax.management.ObjectName("kafka.consumer:type=app-info,id=" + id)))
                    .as("consumer client id " + id)
                    .isTrue();
        }
        assertThat(registry.find("groupkeeper.container.handlers.stuck")
                        .tag("group", group)
                        .gauges())
                .hasSize(2);

        assertThat(b.stop(Duration.ofSeconds(20))).isTrue();
        assertThat(registry.find("groupkeeper.container.handlers.stuck")
                        .tag("group", group)
                        .gauges())
                .singleElement()
                .satisfies(g -> assertThat(g.getId().getTag("listener")).isEqualTo("a"));
    }

    /** Defect 6: a stopped container starts again (new members) and consumes; one given instances says how to. */
    @Test
    void aStoppedContainerStartsAgain() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        GroupKeeper keeper = newKeeper();
        Seen seen = new Seen();
        ListenerContainer<String, String> c = started(container(keeper, group, topic)
                .deserializers(
                        org.apache.kafka.common.serialization.StringDeserializer::new,
                        org.apache.kafka.common.serialization.StringDeserializer::new)
                .recordHandler(seen.records::add)
                .build());
        send(topic, 0, "a");
        await().atMost(WAIT).until(() -> seen.records.size() == 1);
        assertThat(c.stop(Duration.ofSeconds(20))).isTrue();
        assertThat(c.state()).isEqualTo(ContainerState.STOPPED);

        send(topic, 0, "b");
        c.start();
        assertThat(c.state()).isEqualTo(ContainerState.RUNNING);
        await().atMost(WAIT).until(() -> seen.records.size() == 2);
        assertThat(seen.values()).containsExactly("a", "b");
        awaitStored(group, topic, 0, 2);

        ListenerContainer<String, String> shared = started(
                container(keeper, newName("g"), topic).recordHandler(r -> {}).build());
        assertThat(shared.stop(Duration.ofSeconds(20))).isTrue();
        org.assertj.core.api.Assertions.assertThatThrownBy(shared::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("deserializers(Supplier, Supplier) to restart it");
    }

    /**
     * Defect 9: the container's lines carry the group and member in the MDC keys the core uses (the documented pattern
     * {@code %X{group}/%X{member}}), not a prefix of their own.
     */
    private static final String DISPATCHER = "io.groupkeeper.kafka.container.internal.Dispatcher";

    @Test
    void aWorkersLinesNameGroupAndMemberInTheLoggingContext() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        var log = captureWarnings(DISPATCHER);
        try {
            send(topic, 0, "poison");
            ListenerContainer<String, String> c = started(container(newKeeper(), group, topic)
                    .errorPolicy(ErrorPolicy.builder()
                            .otherwise(ErrorAction.deadLetter())
                            .build())
                    .recordHandler(r -> {
                        throw new IllegalStateException("poison");
                    })
                    .build());
            awaitStored(group, topic, 0, 1);
            String member = c.workers().get(0).member();
            assertThat(warnings(log))
                    .filteredOn(w -> w.contains("dead-lettered to " + topic + "-dlt"))
                    .singleElement()
                    .satisfies(
                            w -> assertThat(w).startsWith(group + "/" + member + " - " + topic + "-0@0 dead-lettered"));
        } finally {
            stopCapture(log, DISPATCHER);
        }
    }

    /** Defect 8: a handler reaches its partition's fencing token (record and batch handlers alike). */
    @Test
    void aHandlerReachesItsPartitionsFencingToken() throws Exception {
        String topic = newTopic(2);
        GroupKeeper keeper = newKeeper();
        java.util.Map<String, java.util.OptionalLong> tokens = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.List<java.util.OptionalLong> batchTokens =
                java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        send(topic, 0, "a", "b");
        send(topic, 1, "c");
        started(container(keeper, newName("g"), topic)
                .recordHandler(r -> {
                    assertThat(io.groupkeeper.kafka.container.HandlerContext.partition())
                            .contains(new TopicPartition(r.topic(), r.partition()));
                    tokens.put(r.value(), io.groupkeeper.kafka.container.HandlerContext.fencingToken());
                })
                .build());
        started(container(keeper, newName("g"), topic)
                .batchHandler(batch -> batchTokens.add(io.groupkeeper.kafka.container.HandlerContext.fencingToken()))
                .build());

        await().atMost(WAIT).until(() -> tokens.size() == 3 && batchTokens.size() >= 2);
        assertThat(tokens.values()).allSatisfy(t -> assertThat(t.orElse(-1)).isPositive());
        assertThat(tokens.get("a")).isEqualTo(tokens.get("b")); // one ownership of partition 0
        assertThat(tokens.get("a")).isNotEqualTo(tokens.get("c")); // each claim has its own token
        assertThat(batchTokens).allSatisfy(t -> assertThat(t).isPresent());
        assertThat(io.groupkeeper.kafka.container.HandlerContext.fencingToken())
                .as("outside a handler")
                .isEmpty();
    }

    /**
     * Defect 2: during a downstream outage every record fails; a second member joins. The worker polls while a record
     * waits for its next attempt, so the rebalance completes within one backoff step (not after the fetch's retries or
     * the revocation timeout); no partition is handled by two members at once; when the outage ends every record is
     * handled once and none was dead-lettered.
     */
    @Test
    void aRebalanceDuringAnOutageCompletesWithinOneBackoffStep() throws Exception {
        String topic = newTopic(2);
        String group = newName("g");
        Duration step = Duration.ofSeconds(2);
        java.util.concurrent.atomic.AtomicBoolean down = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.Map<Integer, AtomicInteger> inHandler = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.concurrent.atomic.AtomicBoolean overlap = new java.util.concurrent.atomic.AtomicBoolean();
        AtomicInteger failures = new AtomicInteger();
        Seen seen = new Seen();
        for (int p = 0; p < 2; p++) {
            for (int i = 0; i < 10; i++) {
                send(topic, p, p + "-" + i);
            }
        }
        io.groupkeeper.kafka.container.RecordHandler<String, String> handler = r -> {
            AtomicInteger n = inHandler.computeIfAbsent(r.partition(), k -> new AtomicInteger());
            if (n.incrementAndGet() > 1) {
                overlap.set(true);
            }
            try {
                if (down.get()) {
                    failures.incrementAndGet();
                    throw new IllegalStateException("downstream unavailable");
                }
                seen.records.add(r);
            } finally {
                n.decrementAndGet();
            }
        };
        ErrorPolicy policy = ErrorPolicy.builder()
                .otherwise(ErrorAction.retry(5, Backoff.fixed(step)).thenDeadLetter())
                .build();
        ListenerContainer<String, String> a = started(container(newKeeper(), group, topic)
                .errorPolicy(policy)
                .consumerOptions(b -> b.startPosition(StartPosition.earliest())
                        .commitInterval(Duration.ofMillis(200))
                        .revocationTimeout(Duration.ofSeconds(15)))
                .recordHandler(handler)
                .build());
        await().atMost(WAIT).until(() -> failures.get() >= 2); // both partitions failing, waiting for their retries

        ListenerContainer<String, String> b = started(container(newKeeper(), group, topic)
                .errorPolicy(policy)
                .consumerOptions(o -> o.startPosition(StartPosition.earliest())
                        .commitInterval(Duration.ofMillis(200))
                        .revocationTimeout(Duration.ofSeconds(15)))
                .recordHandler(handler)
                .build());
        long joined = System.nanoTime();
        await().atMost(WAIT)
                .until(() -> b.workers().get(0).owned().size() == 1
                        && a.workers().get(0).owned().size() == 1);
        Duration rebalance = Duration.ofNanos(System.nanoTime() - joined);
        System.out.println("rebalance during an outage: partition moved " + rebalance.toMillis()
                + " ms after the second member joined (backoff step " + step.toMillis() + " ms)");
        assertThat(rebalance).as("the partition moved within one backoff step").isLessThan(step);

        down.set(false);
        await().atMost(WAIT).until(() -> seen.records.size() >= 20);
        awaitStored(group, topic, 0, 10);
        awaitStored(group, topic, 1, 10);
        assertThat(seen.values()).doesNotHaveDuplicates().hasSize(20);
        assertThat(overlap).as("a partition handled by two members at once").isFalse();
        assertThat(admin.listOffsets(java.util.Map.of(
                                new TopicPartition(topic + "-dlt", 0),
                                org.apache.kafka.clients.admin.OffsetSpec.latest()))
                        .all()
                        .get()
                        .values())
                .allSatisfy(o -> assertThat(o.offset()).as("dead letters").isZero());
    }
}
