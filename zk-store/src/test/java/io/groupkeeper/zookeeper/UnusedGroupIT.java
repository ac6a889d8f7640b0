package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.TestNames;
import io.groupkeeper.fixtures.ZkLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A group in which nothing was ever claimed or committed — a mistyped group name, or a topic nobody registered — is
 * removed when its last member leaves (issue 48: it left 10 persistent nodes for good); a group that was used keeps
 * everything, and a member that joins next finds its group made again.
 */
class UnusedGroupIT extends ZkTestSupport {

    private List<String> subtree(String root) throws Exception {
        List<String> all = new ArrayList<>();
        List<String> level = new ArrayList<>();
        if (admin.checkExists().forPath(root) != null) {
            level.add(root);
        }
        while (!level.isEmpty()) {
            List<String> next = new ArrayList<>();
            for (String p : level) {
                all.add(p);
                for (String c : admin.getChildren().forPath(p)) {
                    next.add(p + "/" + c);
                }
            }
            level = next;
        }
        return all;
    }

    @Test
    void aGroupWhoseMemberNeverOwnedAnythingIsGoneWhenItLeaves() throws Exception {
        String group = newGroup();
        String typo = TestNames.unique("typo");
        GroupKeeper gk = newKeeper();
        GroupMember m = gk.member(group).topics(typo).build();
        m.start();
        assertThat(subtree(ZkLayout.group(group)))
                .as("the group while its member runs")
                .hasSizeGreaterThan(5);
        m.close();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(subtree(ZkLayout.group(group)))
                        .as("nodes left by the group")
                        .isEmpty());

        // The next member of that group (same keeper) finds it made again.
        topic(typo, 1);
        GroupMember next = gk.member(group).topics(typo).build();
        next.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> next.assignment().contains(new TopicPartition(typo, 0)));
    }

    @Test
    void aGroupThatClaimedOrCommittedKeepsItsNodes() throws Exception {
        String group = newGroup();
        topic("used", 2);
        GroupKeeper gk = newKeeper();
        GroupMember m = gk.member(group).topics("used").build();
        m.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> m.assignment().size() == 2);
        m.commit(Map.of(new TopicPartition("used", 0), 5L));
        m.close();
        assertThat(subtree(ZkLayout.group(group)))
                .contains(
                        ZkLayout.GROUPS + "/" + group + "/offsets/used/0",
                        ZkLayout.GROUPS + "/" + group + "/fences/used/1");
    }

    @Test
    void aGroupWithAnotherMemberStays() throws Exception {
        String group = newGroup();
        String typo = TestNames.unique("typo");
        GroupMember a = newKeeper().member(group).topics(typo).build();
        GroupMember b = newKeeper().member(group).topics(typo).build();
        a.start();
        b.start();
        a.close();
        assertThat(admin.getChildren().forPath(ZkLayout.members(group))).containsExactly(b.memberId());
        b.close();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(subtree(ZkLayout.group(group))).isEmpty());
    }
}
