package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.kafka.container.HandlerContext;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.ListenerContainerBuilder;
import io.groupkeeper.kafka.container.MicrometerKafkaClientMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The Kafka clients of a container in a meter registry ({@link MicrometerKafkaClientMetrics}): every worker's consumer
 * and the producers the container owns, apart, tagged {@code spring.id} as Spring Kafka's own listeners tag theirs
 * (issue 36 item 3), and gone for good when the clients close — also after the refresh interval (F8).
 */
class KafkaClientMetricsIT extends ContainerTestSupport {

    static final String CONSUMED = "kafka.consumer.fetch.manager.records.consumed.total";
    static final String SENT = "kafka.producer.record.send.total";
    static final String THREAD = "groupkeeper-kafka-metrics-";

    @Test
    void everyWorkersKafkaClientsAreBoundToTheRegistryApartAndUnboundWhenTheyClose() throws Exception {
        String in = newTopic(2);
        String out = newTopic(1);
        String group = newName("metrics");
        String id = "groupkeeper/billing/" + group + "/";
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Queue<String> seen = new ConcurrentLinkedQueue<>();
        ListenerContainer<String, String> c = started(transactional(group, in, out, seen)
                .id("billing")
                .concurrency(2)
                .clientListener(MicrometerKafkaClientMetrics.forContainer(registry, "billing", group))
                .build());
        await().atMost(WAIT)
                .until(() -> c.workers().stream().allMatch(w -> w.owned().size() == 1));
        send(in, 0, "a", "b");
        send(in, 1, "c");
        await().atMost(WAIT).until(() -> seen.size() == 3);

        await().atMost(WAIT).untilAsserted(() -> {
            var counters = registry.find(CONSUMED)
                    .tag("spring.id", v -> v.startsWith(id))
                    .functionCounters();
            Set<String> clients =
                    counters.stream().map(m -> m.getId().getTag("client.id")).collect(Collectors.toSet());
            assertThat(clients).as("one per worker, apart").hasSize(2);
            assertThat(counters)
                    .allSatisfy(m -> assertThat(m.getId().getTag("spring.id"))
                            .isEqualTo(id + m.getId().getTag("client.id")));
            assertThat(counters.stream().mapToDouble(FunctionCounter::count).sum())
                    .isEqualTo(3.0);
        });
        assertThat(registry.find(CONSUMED).meters())
                .as("Spring Kafka's tag keys, no others")
                .allSatisfy(m -> assertThat(m.getId().getTags())
                        .extracting(t -> t.getKey())
                        .containsExactlyInAnyOrder("client.id", "kafka.version", "spring.id"));
        // the transactional producers (one per owned input partition) and the dead-letter producer
        assertThat(producerClientIds(registry, id))
                .hasSize(3)
                .anyMatch(cid -> cid.endsWith("-dlt"))
                .anyMatch(cid -> cid.endsWith("/" + in + "/0"))
                .anyMatch(cid -> cid.endsWith("/" + in + "/1"));

        c.close();
        assertThat(registry.find(CONSUMED).meters())
                .as("removed with the closed clients")
                .isEmpty();
        assertThat(registry.find(SENT).meters()).isEmpty();
    }

    /**
     * F8: a closed client's refresh thread ends with it, so its meters stay gone after the refresh interval (before a
     * review fix the refresh ran on and put a released producer's meters back).
     */
    @Test
    void aClosedClientsMetersStayGonePastTheRefreshIntervalAndItsRefreshThreadEnds() throws Exception {
        String in = newTopic(1);
        String out = newTopic(1);
        String group = newName("refresh");
        String id = "groupkeeper/refresh/" + group + "/";
        Duration refresh = Duration.ofMillis(100);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Queue<String> seen = new ConcurrentLinkedQueue<>();
        ListenerContainer<String, String> c = started(transactional(group, in, out, seen)
                .id("refresh")
                .clientListener(MicrometerKafkaClientMetrics.forContainer(registry, "refresh", group, refresh))
                .build());
        send(in, 0, "a");
        await().atMost(WAIT).until(() -> seen.size() == 1);
        // a producer's per-topic meters are registered late, by a refresh: the threads run, at the given interval
        await().atMost(WAIT)
                .until(() -> registry.find("kafka.producer.topic.record.send.total")
                                .tag("topic", out)
                                .tag("spring.id", v -> v.startsWith(id))
                                .meter()
                        != null);
        Set<String> clients = registry.getMeters().stream()
                .map(m -> m.getId().getTag("spring.id"))
                .filter(v -> v != null && v.startsWith(id))
                .map(v -> v.substring(id.length()))
                .collect(Collectors.toSet());
        assertThat(clients)
                .as("the consumer, the partition's producer, the dead-letter producer")
                .hasSize(3);
        assertThat(refreshThreads(clients)).as("one refresh thread per client").hasSize(3);

        c.close(); // the worker stops, the partition's producer is released, the dead-letter producer closed

        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(refreshThreads(clients))
                        .as("refresh threads")
                        .isEmpty());
        await().during(refresh.multipliedBy(10))
                .atMost(refresh.multipliedBy(30))
                .untilAsserted(() -> assertThat(meters(registry, id))
                        .as("meters after refreshes")
                        .isEmpty());
    }

    private ListenerContainerBuilder<String, String> transactional(
            String group, String in, String out, Queue<String> seen) {
        return container(newKeeper(), group, in)
                .transactional(new StringSerializer(), new StringSerializer())
                .recordHandler(r -> {
                    HandlerContext.<String, String>sender().send(out, r.value());
                    seen.add(r.value());
                });
    }

    private static Set<String> producerClientIds(MeterRegistry registry, String id) {
        return registry.find(SENT).tag("spring.id", v -> v.startsWith(id)).functionCounters().stream()
                .map(m -> m.getId().getTag("client.id"))
                .collect(Collectors.toSet());
    }

    private static List<Meter.Id> meters(MeterRegistry registry, String id) {
        return registry.getMeters().stream()
                .map(Meter::getId)
                .filter(m ->
                        m.getTag("spring.id") != null && m.getTag("spring.id").startsWith(id))
                .toList();
    }

    private static List<String> refreshThreads(Set<String> clients) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(n -> n.startsWith(THREAD) && clients.contains(n.substring(THREAD.length())))
                .toList();
    }
}
