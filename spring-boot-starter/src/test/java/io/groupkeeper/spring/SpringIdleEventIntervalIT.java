package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.idle.IdleApp;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * F9: Spring Kafka's {@code spring.kafka.listener.idle-event-interval}, the only idle setting here (no
 * {@code groupkeeper.listener.idle-event-interval}), makes a listener publish {@link ListenerIdleEvent}s; a listener's
 * {@code @GroupKeeperListener(idleEventInterval)} wins over it (docs/spring-boot.md: the annotation,
 * {@code groupkeeper.listener.idle-event-interval}, the Spring property, in that order).
 */
@SpringBootTest(classes = IdleApp.class)
class SpringIdleEventIntervalIT {

    static final String GROUP = SharedServers.name("idle");
    static final String QUIET = SharedServers.topic(1);
    static final Duration PROPERTY = Duration.ofMillis(300);
    static final Duration ANNOTATION = Duration.ofMillis(1500);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        Map.of(
                        "groupkeeper.zookeeper.connect",
                        SharedServers.get().zkConnectString(),
                        "spring.kafka.bootstrap-servers",
                        SharedServers.get().bootstrapServers(),
                        "spring.kafka.listener.idle-event-interval",
                        PROPERTY.toMillis() + "ms",
                        "groupkeeper.listener.stop-deadline",
                        "5s",
                        "app.group",
                        GROUP,
                        "app.quiet",
                        QUIET)
                .forEach((k, v) -> registry.add(k, () -> v));
    }

    @Autowired
    IdleApp.Listeners listeners;

    @Test
    void springKafkasIdleEventIntervalAloneMakesAListenerPublishIdleEvents() {
        await().atMost(WAIT).until(() -> events("plain").size() >= 2);
        assertThat(events("plain")).allSatisfy(e -> {
            assertThat(e.getGroup()).isEqualTo(GROUP);
            assertThat(e.getIdleFor()).isGreaterThanOrEqualTo(PROPERTY);
        });
    }

    @Test
    void theAnnotationsIdleEventIntervalWinsOverTheProperty() {
        await().atMost(WAIT).until(() -> !events("own").isEmpty());
        assertThat(events("own")).allSatisfy(e -> {
            assertThat(e.getGroup()).isEqualTo(GROUP + "-own");
            assertThat(e.getIdleFor())
                    .as("the annotation's interval, not the property's")
                    .isGreaterThanOrEqualTo(ANNOTATION);
        });
    }

    private List<ListenerIdleEvent> events(String listener) {
        return listeners.idle.stream()
                .filter(e -> e.getListenerId().equals(listener))
                .toList();
    }
}
