package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.parity.ParityApp;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Issue 45: listener forms and dead letters as Spring for Apache Kafka has them, on one application with only
 * {@code spring.kafka.consumer.bootstrap-servers} set (the dead-letter producer must find the broker through it, not
 * Boot's default {@code localhost:9092}).
 */
class SpringKafkaParityIT {

    static String topic;
    static String group;
    static String late;
    static ConfigurableApplicationContext ctx;
    static Admin admin;

    @BeforeAll
    static void start() throws Exception {
        topic = SharedServers.topic(2);
        SharedServers.get().kafka().createTopic(topic + "-dlt", 2);
        late = SharedServers.name("late");
        group = SharedServers.name("parity");
        Map<String, Object> p = new HashMap<>();
        p.put("groupkeeper.zookeeper.connect", SharedServers.get().zkConnectString());
        p.put("spring.kafka.consumer.bootstrap-servers", SharedServers.get().bootstrapServers());
        p.put("spring.kafka.consumer.group-id", group);
        p.put("spring.kafka.consumer.auto-offset-reset", "earliest");
        p.put("spring.kafka.consumer.properties.metadata.max.age.ms", "500");
        p.put("groupkeeper.listener.error.attempts", "2");
        p.put("groupkeeper.listener.error.backoff", "10ms");
        p.put("groupkeeper.listener.stop-deadline", "5s");
        p.put("app.topic", topic);
        p.put("app.group", group);
        p.put("app.late-topic", late);
        ctx = new SpringApplicationBuilder(ParityApp.class)
                .web(WebApplicationType.NONE)
                .properties(p)
                .run();
        admin = Admin.create(Map.of("bootstrap.servers", SharedServers.get().bootstrapServers()));
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
        if (ctx != null) {
            ctx.close();
        }
    }

    /**
     * SpEL topic, group from spring.kafka.consumer.group-id, @Headers MessageHeaders, ConsumerRecordMetadata, a
     * RecordFilterStrategy bean.
     */
    @Test
    void springsListenerFormsAreHonoured() {
        ParityApp.Orders orders = ctx.getBean(ParityApp.Orders.class);
        SharedServers.send(topic, 1, "skip-0");
        SharedServers.send(topic, 1, "o-1");
        await().atMost(WAIT).until(() -> orders.seen.stream().anyMatch(o -> o.startsWith("o-1@")));
        assertThat(orders.seen)
                .contains("o-1@1:1 group " + group + " meta " + topic + "-1@1")
                .as("the RecordFilterStrategy bean discarded skip-0")
                .noneMatch(o -> o.startsWith("skip-"));
        assertThat(ctx.getBean(GroupKeeperContainers.class).containers())
                .as("default id: <bean name>.<method name>")
                .containsKey("parityApp.Orders.onOrder");
        assertThat(orders.threads)
                .as("thread named per listener")
                .allMatch(t -> t.startsWith("groupkeeper-parityApp.Orders.onOrder-"));
    }

    /** Spring's kafka_dlt-* headers; a listener of the dead-letter topic skips its own failures (no -dlt-dlt). */
    @Test
    void deadLettersCarrySpringsHeadersAndADeadLetterListenerCreatesNoDltDlt() throws Exception {
        ParityApp.DeadLetters dead = ctx.getBean(ParityApp.DeadLetters.class);
        SharedServers.send(topic, 0, "poison-1");
        await().atMost(WAIT).until(() -> dead.attempts.get() >= 2);
        Map<String, Object> h = dead.seen.peek();
        assertThat(h)
                .containsEntry("value", "poison-1")
                .containsEntry("topic", topic)
                .containsEntry("partition", 0)
                .containsEntry("offset", 0L)
                .containsEntry("group", group)
                .containsEntry("fqcn", IllegalStateException.class.getName())
                .containsEntry("causeFqcn", ArithmeticException.class.getName())
                .containsEntry("message", "cannot take poison-1; root cause");
        assertThat((Long) h.get("timestamp")).isPositive();
        assertThat((String) h.get("stackTrace")).startsWith(IllegalStateException.class.getName() + ": cannot take");
        ParityApp.Orders orders = ctx.getBean(ParityApp.Orders.class);
        SharedServers.send(topic, 0, "o-after");
        await().atMost(WAIT).until(() -> orders.seen.stream().anyMatch(s -> s.startsWith("o-after@0:1")));
        assertThat(dead.attempts).as("2 attempts, then skipped").hasValue(2);
        assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).doesNotContain(topic + "-dlt-dlt");
    }

    /** Issue 48 item 5: no dead-letter topic for a source that does not exist; created with its partitions later. */
    @Test
    void theDeadLetterTopicOfALateTopicIsCreatedWithItsPartitionsWhenNeeded() throws Exception {
        assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).doesNotContain(late, late + "-dlt");
        assertThat(ctx.getBean(GroupKeeperContainers.class)
                        .container(group + "-late")
                        .group())
                .as("an id without a group is the group, as @KafkaListener's idIsGroup")
                .isEqualTo(group + "-late");
        SharedServers.get().kafka().createTopic(late, 3);
        ParityApp.Late listener = ctx.getBean(ParityApp.Late.class);
        await().atMost(WAIT).ignoreExceptions().until(() -> {
            SharedServers.send(late, 2, "probe");
            return listener.seen.contains("probe");
        });
        SharedServers.send(late, 2, "poison-late");
        await().atMost(WAIT)
                .ignoreExceptions()
                .until(() -> admin.listTopics().names().get().contains(late + "-dlt"));
        assertThat(admin.describeTopics(List.of(late + "-dlt"))
                        .allTopicNames()
                        .get(30, TimeUnit.SECONDS)
                        .get(late + "-dlt")
                        .partitions())
                .as("as many partitions as its source")
                .hasSize(3);
    }
}
