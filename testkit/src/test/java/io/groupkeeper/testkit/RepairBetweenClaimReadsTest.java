package io.groupkeeper.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.spi.internal.ClaimResult;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.GroupStores;
import io.groupkeeper.zkprotocol.ZkNode;
import io.groupkeeper.zkprotocol.ZkPort;
import io.groupkeeper.zkprotocol.internal.ZkPaths;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Commit 6644aea: the claim's slow path reads the offset node, finds it corrupt, undoes its own pipelined claim and
 * reads the node again with a watch, to wake the member when someone fixes it. An operator's fix that lands between
 * the two reads fires no watch (it was made before the watch was set), so a claim that then says Blocked leaves the
 * partition waiting forever. GroupDeliveryIT's typo-and-repair case met this once; here the fix is put between the two
 * reads on purpose: the port repairs the node right after the claim's first read found it corrupt.
 */
class RepairBetweenClaimReadsTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final String OFFSET = ZkLayout.GROUPS + "/g/offsets/t/0";
    private static final long REPAIRED = 42;

    private final InMemoryZooKeeper zk = new InMemoryZooKeeper();
    private RepairingPort port;
    private GroupKeeper keeper;

    @AfterEach
    void close() {
        if (keeper != null) {
            keeper.close();
        }
    }

    private InMemoryCoordinationStore store() {
        return InMemoryCoordinationStore.builder(zk)
                .instrument(p -> port = new RepairingPort(p))
                .build();
    }

    /** An operator's typo in the partition's offset node, made with its folders if missing. */
    private void typo() {
        String parent = "";
        for (String part : OFFSET.substring(1, OFFSET.lastIndexOf('/')).split("/")) {
            parent += "/" + part;
            if (!zk.exists(parent)) {
                zk.create(parent);
            }
        }
        zk.writeGarbage(OFFSET, "a typo");
    }

    @Test
    void aClaimThatSeesTheRepairInItsWatchingReadTakesThePartition() {
        InMemoryCoordinationStore store = store();
        store.start();
        try {
            GroupStore group = GroupStores.of(store, "g");
            group.ensureGroup("sticky");
            typo();

            ClaimResult result = group.claim(TP, "m1", 1, () -> {});

            assertThat(port.repairs)
                    .as("the repair landed between the two reads")
                    .isEqualTo(1);
            assertThat(result).isInstanceOf(ClaimResult.Claimed.class);
            assertThat(((ClaimResult.Claimed) result).offset().offset()).hasValue(REPAIRED);
            assertThat(zk.exists(ZkLayout.GROUPS + "/g/owners/t/0")).isTrue();
        } finally {
            store.close();
        }
    }

    @Test
    void aMemberWhosePartitionWasRepairedBetweenTheReadsOwnsItFromTheRepairedOffset() {
        typo(); // before the group starts: the first claim meets it
        keeper = GroupKeeper.builder().store(store()).build().start();
        keeper.topics().ensureTopic("t", 1);
        GroupMember m = keeper.member("g").topics("t").build();
        m.start();

        await().atMost(Duration.ofSeconds(10)).until(() -> m.assignment().contains(TP));
        assertThat(port.repairs).as("the repair landed between the two reads").isEqualTo(1);
        assertThat(m.committed(TP)).isEqualTo(OptionalLong.of(REPAIRED));
    }

    /**
     * The model's port, repairing the offset node once: right after a read without a watch (the claim's first) that
     * found it corrupt, before the store's next request (the watching read comes after the undo).
     */
    private final class RepairingPort extends ForwardingZkPort {
        int repairs;

        RepairingPort(ZkPort delegate) {
            super(delegate);
        }

        @Override
        public Optional<ZkNode> read(String path, Runnable hook) {
            Optional<ZkNode> read = delegate.read(path, hook);
            if (repairs == 0
                    && hook == null
                    && path.equals(ZkPaths.offset("g", TP))
                    && read.isPresent()
                    && new String(read.get().data(), StandardCharsets.UTF_8).startsWith("garbage:")) {
                repairs++;
                zk.setOffset(OFFSET, REPAIRED);
            }
            return read;
        }
    }
}
