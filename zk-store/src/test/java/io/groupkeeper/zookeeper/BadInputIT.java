package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.spi.CorruptNodeException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Corrupt or foreign nodes and bad configuration: one clear error, everything else keeps working, nothing lost. */
class BadInputIT extends ZkTestSupport {

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(strings = {"not json at all", "{\"hello\":\"world\"}", "[1,2,3]"})
    void aCorruptMemberNodeIsIgnoredAndTheRestOfTheGroupKeepsWorking(String body) throws Exception {
        String group = newGroup();
        topic("members-bad", 4);
        GroupKeeper gk = newKeeper();
        GroupMember a = gk.member(group).topics("members-bad").build();
        a.start();
        awaitBalanced(Map.of("members-bad", 4), a);
        admin.create()
                .withMode(CreateMode.EPHEMERAL)
                .forPath(ZkLayout.GROUPS + "/" + group + "/members/bogus", utf8(body));
        GroupMember b = gk.member(group).topics("members-bad").build();
        b.start();
        awaitBalanced(Map.of("members-bad", 4), a, b);
        assertThat(ownersInZk(group)).doesNotContainValue("bogus");
        assertThat(new String(
                        admin.getData().forPath(ZkLayout.GROUPS + "/" + group + "/members/bogus"),
                        StandardCharsets.UTF_8))
                .isEqualTo(body);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "garbage",
                "{\"offset\":-5}",
                "{\"topology\":{\"id\":\"x\"},\"partition\":1}",
                "-3",
                "{\"offset\":\"12\"}"
            })
    void aCorruptOffsetNodeBlocksOnlyItsPartitionAndIsNeverOverwritten(String body) throws Exception {
        String group = newGroup();
        topic("offsets-bad", 3);
        String path = ZkLayout.GROUPS + "/" + group + "/offsets/offsets-bad/1";
        admin.create().creatingParentsIfNeeded().forPath(path, utf8(body));
        GroupMember m = newKeeper().member(group).topics("offsets-bad").build();
        m.start();
        await().untilAsserted(() -> assertThat(m.assignment())
                .containsExactly(new TopicPartition("offsets-bad", 0), new TopicPartition("offsets-bad", 2)));
        assertThat(new String(admin.getData().forPath(path), StandardCharsets.UTF_8))
                .isEqualTo(body);
        assertThatThrownBy(() -> m.committed(new TopicPartition("offsets-bad", 1)))
                .isInstanceOf(CorruptNodeException.class)
                .hasMessageContaining(path);

        // The operator fixes the node: the partition is taken with the fixed offset.
        admin.setData().forPath(path, utf8("{\"offset\":77}"));
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(m.assignment()).contains(new TopicPartition("offsets-bad", 1)));
        assertThat(m.committed(new TopicPartition("offsets-bad", 1))).hasValue(77L);
    }

    @Test
    void topicFoldersDeletedUnderALongLivedClientAreRecreatedOnTheNextClaim() throws Exception {
        String group = newGroup();
        GroupKeeper gk = newKeeper();
        GroupMember first = startedAlone(gk, group, "wiped", 2);
        first.close();
        admin.delete().deletingChildrenIfNeeded().forPath(ZkLayout.GROUPS + "/" + group + "/offsets/wiped");
        admin.delete().deletingChildrenIfNeeded().forPath(ZkLayout.GROUPS + "/" + group + "/owners/wiped");

        GroupMember second = gk.member(group).topics("wiped").build(); // same client: it once created those folders
        second.start();
        awaitBalanced(Map.of("wiped", 2), second);
    }

    @Test
    void badConfigurationFailsFastNamingTheOption() {
        GroupKeeper gk = newKeeper();
        assertThatThrownBy(() -> gk.member(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("group id must not be empty");
        assertThatThrownBy(() -> gk.member("a/b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("group id 'a/b' contains '/'");
        assertThatThrownBy(() -> gk.member("g").assignor("fastest"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown assignor 'fastest'");
        assertThatThrownBy(() -> gk.member("g").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("at least one topic");
        assertThatThrownBy(() -> gk.member("g").settleDelay(Duration.ofMillis(-1)))
                .hasMessageContaining("settleDelay must not be negative");
        assertThatThrownBy(() -> ZooKeeperStore.builder().build()).hasMessageContaining("connectString is required");
        assertThatThrownBy(() -> ZooKeeperStore.builder()
                        .connectString("x:1")
                        .namespace("/abs")
                        .build())
                .hasMessageContaining("namespace");
    }

    @Test
    void negativeOffsetsAreRefusedBeforeAnythingIsWritten() {
        String group = newGroup();
        topic("neg", 1);
        GroupMember m = newKeeper().member(group).topics("neg").build();
        m.start();
        TopicPartition tp = new TopicPartition("neg", 0);
        await().until(() -> m.assignment().contains(tp));
        m.commit(Map.of(tp, 5L));
        assertThatThrownBy(() -> m.commit(Map.of(tp, -1L)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("offset for neg:0 must be >= 0, was -1");
        assertThat(m.committed(tp)).hasValue(5L);
    }

    @Test
    void unreachableZooKeeperAtStartGivesOneClearErrorWithinTheConnectionTimeout() {
        ZooKeeperStore store = ZooKeeperStore.builder()
                .connectString("127.0.0.1:1")
                .connectionTimeout(Duration.ofMillis(700))
                .build();
        GroupKeeper gk = GroupKeeper.builder().store(store).build();
        assertThatThrownBy(gk::start)
                .hasMessageStartingWith("cannot connect to ZooKeeper at 127.0.0.1:1 within 700 ms: ")
                .hasMessageContaining("Connection refused");
        gk.close();
    }
}
