package io.groupkeeper.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.testkit.InMemoryCoordinationStore;
import io.groupkeeper.testkit.InMemoryZooKeeper;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * A connection in doubt for less than the session timeout keeps the health UP (a ZooKeeper server's restart must not
 * make every pod's probe fail); past the timeout, or once the session is lost, it is DOWN. On the in-memory store,
 * whose faults are exact; {@code HealthDownIT} shows the DOWN on real ZooKeeper.
 */
class HealthConnectionTest {

    @Test
    void aBlipShorterThanTheSessionTimeoutStaysUpAndALongerOneIsDown() {
        AtomicLong nanos = new AtomicLong(1_000);
        InMemoryCoordinationStore store = InMemoryCoordinationStore.builder(new InMemoryZooKeeper())
                .sessionTimeout(Duration.ofSeconds(10))
                .build();
        try (GroupKeeper keeper = GroupKeeper.builder().store(store).build().start()) {
            GroupKeeperHealthIndicator indicator =
                    new GroupKeeperHealthIndicator(keeper, new GroupKeeperContainers(null, null), nanos::get);
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

            store.disconnect();
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UP); // the doubt is counted from here
            nanos.addAndGet(Duration.ofSeconds(9).toNanos());
            Health blip = indicator.health();
            assertThat(blip.getStatus()).isEqualTo(Status.UP);
            assertThat(zookeeper(blip))
                    .containsEntry("connected", false)
                    .containsEntry("disconnectedForMs", 9_000L)
                    .containsEntry("sessionLost", false);

            store.reconnect();
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
            assertThat(zookeeper(indicator.health())).containsEntry("connected", true);

            store.disconnect();
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
            nanos.addAndGet(Duration.ofSeconds(11).toNanos());
            Health gone = indicator.health();
            assertThat(gone.getStatus()).isEqualTo(Status.DOWN);
            assertThat(zookeeper(gone)).containsEntry("sessionLost", true).containsEntry("sessionTimeoutMs", 10_000L);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> zookeeper(Health h) {
        return (Map<String, Object>) h.getDetails().get("zookeeper");
    }
}
