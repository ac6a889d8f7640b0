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
        GroupMember dynamic =
                gk.member(group).topics("static").listener(rec.listenerFor("d")).build();
        dynamic.start();
        GroupMember s = newKeeper()
                .member(group)
                .topics("static")
                .instanceId("worker-1")
                .staticGracePeriod(Duration.ofSeconds(30))
                .build();
        s.start();
        awaitBalanced(Map.of("static", 6), dynamic, s);
        SortedSet<TopicPartition> staticHad = s.assignment();
        SortedSet<TopicPartition> dynamicHad = dynamic.assignment();
        int dynamicEvents = rec.events("d").size();

        s.close(); // a rolling restart
        GroupMember back = newKeeper()
                .member(group)
                .topics("static")
                .instanceId("worker-1")
                .staticGracePeriod(Duration.ofSeconds(30))
                .build();
        back.start();
        await().untilAsserted(() -> assertThat(back.assignment()).isEqualTo(staticHad));
        assertThat(dynamic.assignment()).isEqualTo(dynamicHad);
        assertThat(rec.events("d")).hasSize(dynamicEvents);
    }

    @Test
    void staticMemberThatDoesNotReturnLosesItsPartitionsWhenTheGraceEnds() {
        Duration grace = Duration.ofSeconds(3);
        String group = newGroup();
        topic("static-gone", 4);
        GroupMember dynamic = newKeeper()
                .member(group)
                .topics("static-gone")
                .staticGracePeriod(grace)
                .build();
        dynamic.start();
        GroupMember s = newKeeper()
                .member(group)
                .topics("static-gone")
                .instanceId("worker-2")
                .staticGracePeriod(grace)
                .build();
        s.start();
        awaitBalanced(Map.of("static-gone", 4), dynamic, s);
        SortedSet<TopicPartition> own = dynamic.assignment();
        long leaving = System.nanoTime();
        s.close();
        // Within the grace, worker-2's partitions wait for it: the other member keeps exactly its own ...
        await().during(grace.dividedBy(2))
                .atMost(grace)
                .until(() -> dynamic.assignment().equals(own));
        // ... and gets them when the grace ends, not before.
        awaitBalanced(Map.of("static-gone", 4), dynamic);
        assertThat(Duration.ofNanos(System.nanoTime() - leaving))
                .as("takeover after the grace")
                .isGreaterThanOrEqualTo(grace);
    }

    @Test
    void aStaticMemberRestartedRightAfterACrashWaitsForItsPredecessorsSessionToExpire() throws Exception {
        String group = newGroup();
        topic("static-crash", 2);
        GroupKeeper crashed = newKeeper();
        GroupMember before = crashed.member(group)
                .topics("static-crash")
                .instanceId("worker-4")
                .build();
        before.start();
        awaitBalanced(Map.of("static-crash", 2), before);

        GroupMember after = newKeeper()
                .member(group)
                .topics("static-crash")
                .instanceId("worker-4")
                .build();
        Thread starter = new Thread(after::start);
        starter.start();
        // start() stays blocked (it would return within milliseconds otherwise): worker-4 is still held.
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3)).until(starter::isAlive);
        expireSession(storeOf(crashed)); // the old session ends, as it would after the session timeout
        crashed.store().close();
        starter.join(20_000);
        assertThat(starter.isAlive()).isFalse();
        awaitBalanced(Map.of("static-crash", 2), after);
    }

    @Test
    void twoLiveProcessesWithOneInstanceIdAreRefused() {
        String group = newGroup();
        topic("static-dup", 2);
        GroupMember first = newKeeper()
                .member(group)
                .topics("static-dup")
                .instanceId("worker-3")
                .build();
        first.start();
        GroupMember second = newKeeper()
                .member(group)
                .topics("static-dup")
                .instanceId("worker-3")
                .registrationTimeout(Duration.ofMillis(600))
                .build();
        assertThatThrownBy(second::start)
                .isInstanceOf(MemberIdInUseException.class)
                .hasMessageContaining("worker-3")
                .hasMessageContaining("already registered");
        awaitBalanced(Map.of("static-dup", 2), first);
    }

    @Test
    void startAsyncReportsTheSameRefusalAndClosesTheRefusedMember() {
        String group = newGroup();
        topic("static-async", 2);
        GroupKeeper keeper = newKeeper();
        GroupMember first = keeper.member(group)
                .topics("static-async")
                .instanceId("worker-5")
                .build();
        first.startAsync().join();
        assertThat(first.memberId()).isEqualTo("worker-5");
        awaitBalanced(Map.of("static-async", 2), first);

        GroupKeeper other = newKeeper();
        GroupMember second = other.member(group)
                .topics("static-async")
                .instanceId("worker-5")
                .registrationTimeout(Duration.ofMillis(600))
                .build();
        java.util.concurrent.CompletableFuture<Void> started = second.startAsync();
        assertThatThrownBy(started::join)
                .hasCauseInstanceOf(MemberIdInUseException.class)
                .hasMessageContaining("worker-5");
        assertThatThrownBy(second::start)
                .as("the refused member is closed")
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        awaitBalanced(Map.of("static-async", 2), first);
    }
}
