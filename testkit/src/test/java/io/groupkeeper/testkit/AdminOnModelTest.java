package io.groupkeeper.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.zkprotocol.ZkNode;
import io.groupkeeper.zkprotocol.ZkPort;
import io.groupkeeper.zkprotocol.admin.AdminException;
import io.groupkeeper.zkprotocol.admin.AdminLayout;
import io.groupkeeper.zkprotocol.admin.AdminNodes;
import io.groupkeeper.zkprotocol.admin.GroupAdmin;
import io.groupkeeper.zkprotocol.admin.GroupDescription;
import io.groupkeeper.zkprotocol.admin.OutcomeUnknownException;
import io.groupkeeper.zkprotocol.admin.PartitionSelection;
import io.groupkeeper.zkprotocol.admin.ResetPlan;
import io.groupkeeper.zkprotocol.admin.ResetSpec;
import io.groupkeeper.zkprotocol.admin.SourceOffsets;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shipped admin (zk-protocol's {@link GroupAdmin}, over the session port) on the model of ZooKeeper, with the
 * model's own lost-reply faults ({@link InMemoryCoordinationStore#failNextWrites}): the code zk-store's {@code
 * GroupAdminIT} runs on a real server, unchanged. A write whose answer was lost is judged from the nodes, never
 * planned again, and a reset of several partitions lands whole or not at all.
 */
class AdminOnModelTest {

    private static final String G = "g";
    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);
    private static final TopicPartition P2 = new TopicPartition("t", 2);

    private final ManualClock clock = new ManualClock();
    private final InMemoryZooKeeper zk = new InMemoryZooKeeper(clock);
    private InMemoryCoordinationStore store;
    private ZkPort port;
    private GroupAdmin admin;

    @BeforeEach
    void start() {
        AtomicReference<ZkPort> p = new AtomicReference<>();
        store = InMemoryCoordinationStore.builder(zk)
                .instrument(client -> {
                    p.set(client);
                    return client;
                })
                .build();
        store.start();
        store.topics().ensureTopic("t", 3);
        port = p.get();
        admin = GroupAdmin.builder().port(port).clock(clock).build();
        SortedMap<TopicPartition, Long> offsets = new TreeMap<>();
        offsets.put(P0, 10L);
        offsets.put(P1, 20L);
        offsets.put(P2, 30L);
        admin.executeImport(G, SourceOffsets.of("test", offsets));
    }

    @AfterEach
    void stop() {
        admin.close();
        store.close();
    }

    private OptionalLong stored(TopicPartition tp) {
        ZkNode n = port.read(AdminLayout.offset(G, tp), null).orElseThrow();
        return AdminNodes.offset(tp.toString(), n.data()).offset();
    }

    private int version(TopicPartition tp) {
        return port.read(AdminLayout.offset(G, tp), null).orElseThrow().stat().version();
    }

    @Test
    void aShiftWhoseTransactionLandedAndWhoseAnswerWasLostIsAppliedOnceAndReportedApplied() {
        int v0 = version(P0);
        store.failNextWrites(1, true);
        ResetPlan plan = admin.executeReset(G, PartitionSelection.allTopics(), new ResetSpec.ShiftBy(100));
        assertThat(plan.executed()).isTrue();
        assertThat(plan.attempts()).isEqualTo(1);
        assertThat(stored(P0)).as("shifted once, not planned again").hasValue(110);
        assertThat(stored(P1)).hasValue(120);
        assertThat(stored(P2)).hasValue(130);
        assertThat(version(P0)).isEqualTo(v0 + 1);
    }

    @Test
    void aShiftWhoseTransactionWasLostBeforeItLandedSaysNothingWasWritten() {
        int v0 = version(P0);
        store.failNextWrites(1, false);
        assertThatThrownBy(() -> admin.executeReset(G, PartitionSelection.allTopics(), new ResetSpec.ShiftBy(100)))
                .isInstanceOf(AdminException.class)
                .isNotInstanceOf(OutcomeUnknownException.class)
                .hasMessage("reset of group g failed: ZooKeeper CONNECTIONLOSS; nothing was written");
        assertThat(stored(P0)).hasValue(10);
        assertThat(stored(P2)).hasValue(30);
        assertThat(version(P0)).isEqualTo(v0);
    }

    @Test
    void aResetWhoseSessionEndsWithItsAnswerLostIsReportedUnknownAndLandedWhole() {
        // The connection stays down until the session has expired: nothing can be read to judge it.
        store.failNextWritesAndExpire(1, true);
        assertThatThrownBy(() -> admin.executeReset(G, PartitionSelection.allTopics(), new ResetSpec.ToOffset(5)))
                .isInstanceOf(OutcomeUnknownException.class)
                .hasMessageStartingWith("reset of group g: ZooKeeper CONNECTIONLOSS after the transaction was sent");
        clock.advance(store.sessionTimeout().plusSeconds(1));
        zk.expireDueSessions();
        assertThat(port.isConnected()).isTrue();
        assertThat(stored(P0)).hasValue(5);
        assertThat(stored(P1)).hasValue(5);
        assertThat(stored(P2)).hasValue(5);
    }

    @Test
    void deletesWhoseAnswerWasLostAreJudgedFromTheNodes() {
        store.failNextWrites(1, false);
        assertThatThrownBy(() -> admin.deleteOffsets(G, "t", false))
                .isInstanceOf(AdminException.class)
                .hasMessage(
                        "delete offsets of topic t in group g failed: ZooKeeper CONNECTIONLOSS; nothing was written");
        assertThat(stored(P0)).hasValue(10);
        store.failNextWrites(1, true);
        assertThat(admin.deleteOffsets(G, "t", false).offsetsDeleted())
                .as("applied; only the answer was lost")
                .hasSize(3);
        assertThat(stored(P0)).isEmpty();
        store.failNextWrites(1, true);
        assertThat(admin.deleteGroup(G, false).what()).isEqualTo("group");
        assertThat(zk.exists(ZkLayout.group(G))).isFalse();
    }

    @Test
    void describeCountsDoneOffsetsAboveTheCommittedOneAndAResetAndAnImportClearThem() {
        zk.setData(ZkLayout.offset(G, P0), "{\"offset\":10,\"done\":{\"from\":10,\"ranges\":[[12,13]]}}");
        zk.setData(ZkLayout.offset(G, P1), "{\"offset\":20,\"done\":{\"from\":20,\"bits\":\"Bw==\"}}");
        zk.setData(ZkLayout.offset(G, P2), "{\"offset\":30,\"done\":{\"from\":30,\"ranges\":[[30,31]]}}");
        GroupDescription d = admin.describe(G);
        assertThat(d.partitions())
                .extracting(GroupDescription.Partition::doneAbove)
                .containsExactly(2, 3, 0);
        assertThat(d.problems())
                .singleElement()
                .asString()
                .contains(AdminLayout.offset(G, P2))
                .contains("done value unreadable: range [30,31] is not above 'from' 30");

        admin.executeReset(G, PartitionSelection.parse(java.util.List.of("t:0")), new ResetSpec.ToOffset(10));
        admin.executeImport(G, SourceOffsets.of("test", new TreeMap<>(java.util.Map.of(P1, 20L))));

        assertThat(new String(zk.data(ZkLayout.offset(G, P0)).orElseThrow(), java.nio.charset.StandardCharsets.UTF_8))
                .doesNotContain("done");
        assertThat(new String(zk.data(ZkLayout.offset(G, P1)).orElseThrow(), java.nio.charset.StandardCharsets.UTF_8))
                .doesNotContain("done");
        assertThat(admin.describe(G).partitions())
                .extracting(GroupDescription.Partition::doneAbove)
                .containsExactly(0, 0, 0);
    }

    @Test
    void describeAndExportReadTheModelAsTheyReadZooKeeper() {
        assertThat(admin.listGroups()).extracting(s -> s.group()).containsExactly(G);
        assertThat(admin.describe(G).partitions()).hasSize(3);
        assertThat(admin.exportOffsets(G).offsets()).containsEntry(P0, 10L).containsEntry(P2, 30L);
    }
}
