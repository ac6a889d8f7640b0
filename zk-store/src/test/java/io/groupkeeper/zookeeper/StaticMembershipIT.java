package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.MemberIdInUseException;
import java.time.Duration;
import java.util.Map;
import java.util.SortedSet;
import org.junit.jupiter.api.Test;

/** Static membership (KIP-345 style): a member that returns within the grace period gets its partitions back. */
class StaticMembershipIT extends ZkTestSupport {

    @Test
    void staticMemberReturningWithinGraceGetsItsPartitionsBackAndNobodyElseMoves() {
        String group = newGroup();
        topic("static", 6);
        OwnershipRecorder rec = new OwnershipRecorder();
        GroupKeeper gk = newKeeper();
        GroupMember dynamic = gk.member(group).topics("static").listener(rec.listenerFor("d")).build();
        dynamic.start();
        GroupMember s = newKeeper().member(group).topics("static").instanceId("worker-1")
                .staticGracePeriod(Duration.ofSeconds(30)).build();
        s.start();
        awaitBalanced(Map.of("static", 6), dynamic, s);
        SortedSet<TopicPartition> staticHad = s.assignment();
        SortedSet<TopicPartition> dynamicHad = dynamic.assignment();
        int dynamicEvents = rec.events("d").size();

        s.close(); // a rolling restart
        GroupMember back = newKeeper().member(group).topics("static").instanceId("worker-1")
                .staticGracePeriod(Duration.ofSeconds(30)).build();
        back.start();
        await().untilAsserted(() -> assertThat(back.assignment()).isEqualTo(staticHad));
        assertThat(dynamic.assignment()).isEqualTo(dynamicHad);
        assertThat(rec.events("d")).hasSize(dynamicEvents);
    }

    @Test
    void staticMemberThatDoesNotReturnLosesItsPartitionsWhenTheGraceEnds() {
        String group = newGroup();
        topic("static-gone", 4);
        GroupMember dynamic = newKeeper().member(group).topics("static-gone")
                .staticGracePeriod(Duration.ofMillis(800)).build();
        dynamic.start();
        GroupMember s = newKeeper().member(group).topics("static-gone").instanceId("worker-2")
                .staticGracePeriod(Duration.ofMillis(800)).build();
        s.start();
        awaitBalanced(Map.of("static-gone", 4), dynamic, s);
        s.close();
        awaitBalanced(Map.of("static-gone", 4), dynamic);
    }

    @Test
    void twoLiveProcessesWithOneInstanceIdAreRefused() {
        String group = newGroup();
        topic("static-dup", 2);
        GroupMember first = newKeeper().member(group).topics("static-dup").instanceId("worker-3").build();
        first.start();
        GroupMember second = newKeeper().member(group).topics("static-dup").instanceId("worker-3").build();
        assertThatThrownBy(second::start).isInstanceOf(MemberIdInUseException.class)
                .hasMessageContaining("worker-3").hasMessageContaining("already registered");
        awaitBalanced(Map.of("static-dup", 2), first);
    }
}
