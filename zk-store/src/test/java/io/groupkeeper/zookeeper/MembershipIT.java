package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.spi.internal.GroupStores;
import io.groupkeeper.spi.internal.MemberInfo;
import io.groupkeeper.spi.internal.Registration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Members join and leave; groups are independent; a member may subscribe to several topics. On real ZooKeeper. */
class MembershipIT extends ZkTestSupport {

    @Test
    void membersJoinAndLeaveAndEveryPartitionHasExactlyOneOwner() throws Exception {
        String group = newGroup();
        topic("orders", 6);
        OwnershipRecorder rec = new OwnershipRecorder();
        GroupKeeper gk = newKeeper();
        GroupMember a =
                gk.member(group).topics("orders").listener(rec.listenerFor("a")).build();
        a.start();
        awaitBalanced(Map.of("orders", 6), a);

        GroupMember b =
                gk.member(group).topics("orders").listener(rec.listenerFor("b")).build();
        b.start();
        GroupMember c = newKeeper()
                .member(group)
                .topics("orders")
                .listener(rec.listenerFor("c"))
                .build();
        c.start();
        awaitBalanced(Map.of("orders", 6), a, b, c);
        assertThat(ownersInZk(group)).hasSize(6);

        b.close();
        awaitBalanced(Map.of("orders", 6), a, c);
        await().untilAsserted(() -> assertThat(ownersInZk(group)).hasSize(6).doesNotContainValue(b.memberId()));
        assertThat(rec.overlaps()).isEmpty();
    }

    @Test
    void aCompleteGroupIsCheckedInOneReadAndAFolderDeletedByHandIsMadeAgain() throws Exception {
        String group = newGroup();
        topic("mended", 2);
        ZooKeeperStore store = newStore();
        toClose.add(store);
        store.start();
        // A new group: the join creates it, then registers.
        Registration first = GroupStores.of(store, group).join("sticky", info("first"));
        assertThat(admin.getChildren().forPath(ZkLayout.group(group)))
                .contains("members", "leader", "owners", "offsets", "assignment");
        assertThat(admin.checkExists().forPath(ZkLayout.GROUPS + "/" + group + "/members/first"))
                .isNotNull();
        StoreStats before = store.stats();
        GroupStores.of(store, group).ensureGroup("sticky");
        assertThat(store.stats().minus(before)).isEqualTo(new StoreStats(1, 0, 0, 0));
        // What every member start pays: the listing and the member node's creation, sent together.
        before = store.stats();
        Registration second = GroupStores.of(store, group).join("sticky", info("second"));
        assertThat(store.stats().minus(before)).isEqualTo(new StoreStats(1, 1, 0, 0));
        assertThat(admin.getChildren().forPath(ZkLayout.members(group))).containsExactlyInAnyOrder("first", "second");
        // An offset, so the group stays when these two leave (one in which nothing was ever claimed or committed goes
        // with its last member: UnusedGroupIT).
        io.groupkeeper.fixtures.RawZk.writeOffset(admin, ZkLayout.GROUPS + "/" + group + "/offsets/mended/0", 0);
        first.close();
        second.close();

        String owners = ZkLayout.owners(group);
        admin.delete().deletingChildrenIfNeeded().forPath(owners);
        GroupMember m = newKeeper().member(group).topics("mended").build();
        m.start();
        awaitBalanced(Map.of("mended", 2), m);
        assertThat(ownersInZk(group)).hasSize(2);
        assertThat(admin.getChildren().forPath(owners + "/mended")).containsExactlyInAnyOrder("0", "1");
    }

    private static MemberInfo info(String memberId) {
        return new MemberInfo(
                memberId, Optional.empty(), "test", new TreeSet<>(Set.of("mended")), Instant.now(), "sticky");
    }

    @Test
    void twoGroupsOnOneTopicEachOwnEveryPartition() {
        String g1 = newGroup();
        String g2 = newGroup();
        topic("shared", 4);
        GroupKeeper gk = newKeeper();
        GroupMember a1 = gk.member(g1).topics("shared").build();
        GroupMember a2 = gk.member(g1).topics("shared").build();
        GroupMember b1 = gk.member(g2).topics("shared").build();
        a1.start();
        a2.start();
        b1.start();
        awaitBalanced(Map.of("shared", 4), a1, a2);
        awaitBalanced(Map.of("shared", 4), b1);
        assertThat(b1.assignment()).hasSize(4);
    }

    @Test
    void oneMemberSubscribedToTwoTopics() {
        String group = newGroup();
        topic("left", 3);
        topic("right", 2);
        GroupMember m = newKeeper().member(group).topics("left", "right").build();
        m.start();
        awaitBalanced(Map.of("left", 3, "right", 2), m);
    }

    @Test
    void partitionIncreaseInTheRegistryIsPickedUp() {
        String group = newGroup();
        topic("growing", 2);
        GroupKeeper gk = newKeeper();
        GroupMember a = gk.member(group).topics("growing").build();
        GroupMember b = gk.member(group).topics("growing").build();
        a.start();
        b.start();
        awaitBalanced(Map.of("growing", 2), a, b);
        topic("growing", 6);
        awaitBalanced(Map.of("growing", 6), a, b);
    }

    @Test
    void crashedMembersPartitionsMoveAfterItsSessionExpires() throws Exception {
        String group = newGroup();
        topic("crashy", 4);
        OwnershipRecorder rec = new OwnershipRecorder();
        GroupKeeper survivorKeeper = newKeeper();
        GroupMember survivor = survivorKeeper
                .member(group)
                .topics("crashy")
                .listener(rec.listenerFor("s"))
                .build();
        survivor.start();
        GroupKeeper crashKeeper = newKeeper();
        GroupMember victim = crashKeeper
                .member(group)
                .topics("crashy")
                .listener(rec.listenerFor("v"))
                .build();
        victim.start();
        awaitBalanced(Map.of("crashy", 4), survivor, victim);
        SortedSet<TopicPartition> victimHad = new TreeSet<>(victim.assignment());

        // A crash: no close, no release, no final commit. The process stops, then its session ends on the server.
        rec.crash("v");
        expireSession(storeOf(crashKeeper));
        crashKeeper.store().close();

        awaitBalanced(Map.of("crashy", 4), survivor);
        assertThat(survivor.assignment()).containsAll(victimHad);
        assertThat(rec.overlaps()).isEmpty();
    }
}
