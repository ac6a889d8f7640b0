package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.differential.AnnotationSwap;
import io.groupkeeper.spring.differential.retry.NoAutoCreateListener;
import io.groupkeeper.spring.differential.retry.Sample04;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;

/**
 * The {@code @RetryableTopic(autoCreateTopics = "false")} case of {@link DifferentialIT}: {@link NoAutoCreateListener}
 * as written on Spring for Apache Kafka and with its annotation swapped on the starter. Neither retry nor DLT topic
 * exists at start; what the user sees: whether the application starts, which of those topics exist after the start,
 * and — once they are created (by the user, after the start) — the calls per value and topic.
 */
final class NoAutoCreateDifferential {

    static final List<String> VALUES = List.of("a", "fail-1", "b");

    private NoAutoCreateDifferential() {}

    /** {@code start}: "started", or the root cause of the failed start. */
    record Observed(
            String start, List<String> topicsAfterStart, Map<String, List<String>> calls, List<String> topicsAtEnd) {}

    static Observed run(boolean onSpringKafka) {
        String topic = SharedServers.topic(1);
        String group = SharedServers.name("nac");
        Class<?> listener =
                onSpringKafka ? NoAutoCreateListener.class : AnnotationSwap.toGroupKeeper(NoAutoCreateListener.class);
        ConfigurableApplicationContext ctx;
        try {
            ctx = new SpringApplicationBuilder(Sample04.class)
                    .web(WebApplicationType.NONE)
                    .initializers(c -> ((GenericApplicationContext) c).registerBean("noAutoCreateListener", listener))
                    .properties(Map.of(
                            "groupkeeper.zookeeper.connect",
                            SharedServers.get().zkConnectString(),
                            "spring.kafka.bootstrap-servers",
                            SharedServers.get().bootstrapServers(),
                            "spring.kafka.consumer.auto-offset-reset",
                            "earliest",
                            // both sides' consumers notice the topics created after the start within a second
                            "spring.kafka.consumer.properties.metadata.max.age.ms",
                            "1000",
                            "groupkeeper.listener.stop-deadline",
                            "5s",
                            "app.topic",
                            topic,
                            "app.group",
                            group))
                    .run();
        } catch (RuntimeException e) {
            Throwable root = e;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            return new Observed(
                    "failed: "
                            + String.valueOf(root.getMessage())
                                    .replace(topic, "<topic>")
                                    .replace(group, "<group>"),
                    topics(topic),
                    Map.of(),
                    topics(topic));
        }
        try (ctx) {
            List<String> afterStart = topics(topic);
            SharedServers.get().kafka().createTopic(topic + "-retry", 1); // the user creates them, after the start
            SharedServers.get().kafka().createTopic(topic + "-dlt", 1);
            Sample04.Body body = ctx.getBean(Sample04.Body.class);
            for (String v : VALUES) {
                SharedServers.send(topic, 0, v);
            }
            await().atMost(WAIT.plusSeconds(30))
                    .until(() -> body.calls.stream().anyMatch(c -> c.kind().equals("dlt"))
                            && body.calls.stream()
                                            .filter(c -> c.kind().equals("listen"))
                                            .count()
                                    == 2 + 3);
            Map<String, List<String>> calls = new TreeMap<>();
            for (Sample04.Call c : body.calls) {
                calls.computeIfAbsent(c.value(), v -> new ArrayList<>())
                        .add(c.kind() + "@" + c.topic().replace(topic, "<topic>"));
            }
            return new Observed("started", afterStart, calls, topics(topic));
        }
    }

    /** The topics named {@code <topic>-...} that exist now. */
    private static List<String> topics(String topic) {
        try (Admin admin =
                Admin.create(Map.of("bootstrap.servers", SharedServers.get().bootstrapServers()))) {
            return admin.listTopics().names().get().stream()
                    .filter(t -> t.startsWith(topic + "-"))
                    .map(t -> t.replace(topic, "<topic>"))
                    .sorted()
                    .toList();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
