package io.groupkeeper.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.embedded.EmbeddedZooKeeper;
import io.groupkeeper.examples.ZkProxy;
import io.groupkeeper.fixtures.RawZk;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.spi.internal.ClaimResult;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.GroupStores;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/**
 * I3 across a connection loss that the session survives: the owner's offset-node watches are persistent (issue 19:
 * they tell its own commits apart), and ZooKeeper does not replay to a persistent watch what changed while its client
 * was disconnected. An operator's edit made while the owner is cut off must still reach it: the store fires every
 * armed hook when the connection comes back, and the owner reads and compares.
 */
class OffsetEditWhileCutOffIT {

    private static final Duration SESSION = Duration.ofSeconds(9);

    @Test
    void anEditMadeWhileTheOwnerIsCutOffReachesItWhenItReconnects() throws Exception {
        TopicPartition tp = new TopicPartition("edited", 0);
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.startDefault();
                ZkProxy proxy = new ZkProxy("owner", List.of(zk.port()));
                CuratorFramework operator = RawZk.connect(zk.connectString())) {
            ZooKeeperStore store = ZooKeeperStore.builder()
                    .connectString(proxy.connectString())
                    .sessionTimeout(SESSION)
                    .build();
            ZkProxy.keepBehind(store);
            try (store) {
                store.start();
                GroupStore group = GroupStores.of(store, "g");
                group.ensureGroup("sticky");
                assertThat(group.claim(tp, "m1", 1, () -> {})).isInstanceOf(ClaimResult.Claimed.class);
                AtomicInteger heard = new AtomicInteger();
                group.readOffset(tp, heard::incrementAndGet);
                long session = store.sessionId();

                proxy.partition(); // silent: the owner hears nothing until its client gives the connection up
                await().atMost(SESSION).until(() -> !store.isConnected());
                operator.setData().forPath(ZkLayout.offset("g", tp), "5".getBytes(StandardCharsets.UTF_8));
                assertThat(heard.get())
                        .as("nothing reaches a client that is cut off")
                        .isZero();
                proxy.heal();

                await().atMost(Duration.ofSeconds(20)).until(() -> heard.get() > 0);
                assertThat(store.sessionId())
                        .as("the same session: nothing was re-claimed")
                        .isEqualTo(session);
                assertThat(group.readOffset(tp, null).offset()).hasValue(5);
            }
        }
    }
}
