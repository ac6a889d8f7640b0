package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A 3-node ensemble loses the server a member is connected to: nothing is lost and nothing is double-owned. */
class EnsembleIT {

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    @Test
    void losingTheServerAMemberIsOnMovesItToAnotherServerWithoutDoubleOwnership() throws Exception {
        TestingCluster cluster = new TestingCluster(3);
        toClose.add(cluster);
        cluster.start();
        OwnershipRecorder rec = new OwnershipRecorder();
        List<GroupKeeper> keepers = new ArrayList<>();
        List<GroupMember> members = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ZooKeeperStore store = ZooKeeperStore.builder()
                    .connectString(cluster.getConnectString())
                    .sessionTimeout(Duration.ofSeconds(6))
                    .build();
            GroupKeeper gk = GroupKeeper.builder().store(store).build().start();
            toClose.add(gk);
            keepers.add(gk);
            if (i == 0) {
                gk.topics().ensureTopic("quorum", 9);
            }
        }
        for (int i = 0; i < 3; i++) {
            GroupMember m = keepers.get(i)
                    .member("ensemble")
                    .topics("quorum")
                    .listener(rec.listenerFor("m" + i))
                    .build();
            m.start();
            members.add(m);
        }
        ZkTestSupport.awaitBalanced(Map.of("quorum", 9), members.toArray(GroupMember[]::new));
        TreeSet<TopicPartition> committedBy0 = new TreeSet<>(members.get(0).assignment());
        for (TopicPartition tp : committedBy0) {
            members.get(0).commit(Map.of(tp, 1000L + tp.partition()));
        }

        ZooKeeperStore victimStore = (ZooKeeperStore) keepers.get(0).store();
        InstanceSpec serverOfMember0 = cluster.findConnectionInstance(
                victimStore.curator().getZookeeperClient().getZooKeeper());
        assertThat(cluster.killServer(serverOfMember0)).isTrue();

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            ZkTestSupport.awaitBalanced(Map.of("quorum", 9), members.toArray(GroupMember[]::new));
            assertThat(victimStore.isConnected()).isTrue();
        });
        for (TopicPartition tp : committedBy0) {
            assertThat(members.get(0).committed(tp))
                    .as("committed offset of %s survives", tp)
                    .hasValue(1000L + tp.partition());
        }
        assertThat(rec.overlaps()).isEmpty();
    }
}
