package io.groupkeeper.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.CommitResult;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.ZkLayout;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Found by the simulator (seed 18015 of its third 100,000-schedule run): an operator deletes an owned partition's offset
 * node and creates it again by hand until its version is back at the one the owner last saw. In the owner's own
 * session nothing tells the versions apart, so the owner must compare the node's incarnation (ZooKeeper's czxid) too:
 * its refresh adopts the operator's offset instead of calling it unchanged and committing over it.
 *
 * <p>The second case (seed 51761 of the fifth run): the owner itself re-created the node, by committing after a hand
 * delete. A creation returns no stat, so the commit must still learn the new node's incarnation; otherwise a second
 * delete and re-creation at the same version goes unnoticed.
 */
class RecreatedOffsetNodeTest {

    private final InMemoryZooKeeper zk = new InMemoryZooKeeper();
    private GroupKeeper keeper;

    @AfterEach
    void close() {
        if (keeper != null) {
            keeper.close();
        }
    }

    private final TopicPartition tp = new TopicPartition("t", 0);
    private final String path = ZkLayout.GROUPS + "/g/offsets/t/0";

    /** A started member that owns {@code tp}, the group's only partition. */
    private GroupMember owner() {
        keeper = GroupKeeper.builder()
                .store(new InMemoryCoordinationStore(zk))
                .build()
                .start();
        keeper.topics().ensureTopic("t", 1);
        GroupMember m = keeper.member("g").topics("t").build();
        m.start();
        await().until(() -> m.assignment().contains(tp));
        return m;
    }

    @Test
    void anOffsetNodeCreatedAgainAtTheSameVersionIsAdopted() {
        GroupMember m = owner();
        int seen = zk.stat(path).orElseThrow().version();

        zk.delete(path);
        zk.writeGarbage(path, "oops"); // created again: version 0
        for (int v = 0; v < seen; v++) {
            zk.setOffset(path, 777); // the operator's fix, written until the version is where the owner saw it
        }
        assertThat(zk.stat(path).orElseThrow().version()).isEqualTo(seen);

        CommitResult r = m.refresh(List.of(tp));
        assertThat(r.status(tp)).isEqualTo(CommitResult.Status.ADOPTED);
        assertThat(r.adoptedOffsets().get(tp)).hasValue(777L);
        assertThat(m.commit(Map.of(tp, 778L)).status(tp)).isEqualTo(CommitResult.Status.COMMITTED);
    }

    @Test
    void anOffsetNodeTheOwnerCreatedByCommittingIsToldFromItsHandMadeSuccessor() {
        GroupMember m = owner();

        zk.delete(path); // an operator's first delete, noticed by the member
        assertThat(m.refresh(List.of(tp)).status(tp)).isEqualTo(CommitResult.Status.ADOPTED);
        assertThat(m.commit(Map.of(tp, 500L)).status(tp)).isEqualTo(CommitResult.Status.COMMITTED);
        int ownVersion = zk.stat(path).orElseThrow().version(); // the node as the owner's commit created it

        zk.delete(path); // the second delete, and the fix written until the version is the owner's again
        zk.writeGarbage(path, "oops");
        for (int v = 0; v < ownVersion; v++) {
            zk.setOffset(path, 777);
        }
        assertThat(zk.stat(path).orElseThrow().version()).isEqualTo(ownVersion);

        CommitResult r = m.refresh(List.of(tp));
        assertThat(r.status(tp)).isEqualTo(CommitResult.Status.ADOPTED);
        assertThat(r.adoptedOffsets().get(tp)).hasValue(777L);
    }
}
