package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.embedded.EmbeddedZooKeeper;
import io.groupkeeper.spring.app.TestApp;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Health goes DOWN when the application's ZooKeeper goes away (its own ZooKeeper server, stopped mid-test), and when a
 * listener's worker dies (another context, on the shared servers).
 */
@SpringBootTest(classes = TestApp.class)
class HealthDownIT {

    static EmbeddedZooKeeper zooKeeper;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        zooKeeper = EmbeddedZooKeeper.startDefault();
        String topic = SharedServers.topic(2);
        Map.of(
                        "groupkeeper.zookeeper.connect",
                        zooKeeper.connectString(),
                        "groupkeeper.zookeeper.session-timeout",
                        "4s",
                        "spring.kafka.bootstrap-servers",
                        SharedServers.get().bootstrapServers(),
                        "groupkeeper.listener.dead-letter.create-topics",
                        "true",
                        "groupkeeper.listener.stop-deadline",
                        "5s",
                        "app.topic",
                        topic,
                        "app.group",
                        SharedServers.name("g"),
                        "app.concurrency",
                        "1")
                .forEach((k, v) -> registry.add(k, () -> v));
    }

    @AfterAll
    static void stopZooKeeper() {
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }

    @Autowired
    HealthContributorRegistry health;

    @Autowired
    GroupKeeperContainers containers;

    @Test
    void healthIsDownOnceZooKeeperIsCut() {
        HealthIndicator indicator = (HealthIndicator) health.getContributor("groupkeeper");
        await().atMost(WAIT)
                .until(() ->
                        containers.container("billing").workers().get(0).owned().size() == 2);
        assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

        zooKeeper.close();

        await().atMost(WAIT).until(() -> indicator.health().getStatus().equals(Status.DOWN));
        // DOWN once the session is gone (LOST, or the session timeout passed), not at the first moment of doubt.
        Map<?, ?> zk = (Map<?, ?>) indicator.health().getDetails().get("zookeeper");
        assertThat(zk.get("connected")).isEqualTo(false);
        assertThat(zk.get("sessionLost")).isEqualTo(true);
        assertThat(zk.get("sessionTimeoutMs")).isEqualTo(4_000L);
    }

    @Test
    @SuppressWarnings("unchecked")
    void healthIsDownWhenAListenersWorkerDied() {
        String topic = SharedServers.topic(1);
        try (ConfigurableApplicationContext app = SharedServers.startApp(topic, SharedServers.name("g"), Map.of())) {
            HealthIndicator indicator = (HealthIndicator)
                    app.getBean(HealthContributorRegistry.class).getContributor("groupkeeper");
            await().atMost(WAIT).until(() -> indicator.health().getStatus().equals(Status.UP));

            SharedServers.send(topic, 0, "fatal-order");

            await().atMost(WAIT).until(() -> indicator.health().getStatus().equals(Status.DOWN));
            Map<String, Object> listeners =
                    (Map<String, Object>) indicator.health().getDetails().get("listeners");
            assertThat((Map<String, Object>) listeners.get("billing"))
                    .containsEntry("state", "FAILED")
                    .hasEntrySatisfying(
                            "failure",
                            f -> assertThat(f.toString())
                                    .contains(TestApp.BillingCrash.class.getName())
                                    .contains("billing died on fatal-order"));
            assertThat((Map<String, Object>) listeners.get("audit")).containsEntry("state", "RUNNING");
            assertThat(indicator.health().getDetails().get("zookeeper"))
                    .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                    .containsEntry("connected", true);
        }
    }
}
