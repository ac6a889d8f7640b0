package io.groupkeeper.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Two members on the in-memory store reach a balanced assignment purely by stepping a {@link DeterministicScheduler}:
 * no thread but the test's runs protocol code, time moves only with the scheduler, and a seed fixes the interleaving.
 */
class DeterministicSimulationTest {

    private static final int PARTITIONS = 6;

    /** What one run did: every step, and who ended up with what. */
    record Run(List<String> trace, SortedSet<TopicPartition> first, SortedSet<TopicPartition> second) {
    }

    private static Run simulate(long seed) {
        ManualClock clock = new ManualClock();
        InMemoryZooKeeper zk = new InMemoryZooKeeper(clock);
        DeterministicScheduler scheduler = new DeterministicScheduler(clock, seed);
        GroupKeeper a = keeper(zk, scheduler, "a");
        GroupKeeper b = keeper(zk, scheduler, "b");
        a.topics().ensureTopic("jobs", PARTITIONS);
        GroupMember first = a.member("sim").topics("jobs").build();
        GroupMember second = b.member("sim").topics("jobs").build();
        first.startAsync();
        second.startAsync();

        scheduler.runUntil(() -> balanced(first, second), 100_000);
        return new Run(scheduler.trace(), first.assignment(), second.assignment());
    }

    private static GroupKeeper keeper(InMemoryZooKeeper zk, DeterministicScheduler scheduler, String name) {
        AtomicInteger ids = new AtomicInteger();
        InMemoryCoordinationStore store = InMemoryCoordinationStore.builder(zk).sessionTimeout(Duration.ofSeconds(6))
                .eventExecutor(scheduler.lane(name + "-events")).clock(scheduler.clock()).build();
        return GroupKeeper.builder().store(store).executors(scheduler, scheduler).clock(scheduler.clock())
                .memberIds(() -> name + "-" + ids.incrementAndGet()).build().start();
    }

    private static boolean balanced(GroupMember x, GroupMember y) {
        Set<TopicPartition> all = new HashSet<>(x.assignment());
        all.addAll(y.assignment());
        return all.size() == PARTITIONS && x.assignment().size() == PARTITIONS / 2
                && y.assignment().size() == PARTITIONS / 2;
    }

    @Test
    void twoMembersBalanceByStepsAloneAndTheSameSeedGivesTheSameRun() {
        Run once = simulate(42);
        Run again = simulate(42);

        assertThat(once.trace()).isNotEmpty();
        assertThat(again.trace()).isEqualTo(once.trace());
        assertThat(again.first()).isEqualTo(once.first());
        assertThat(once.first()).doesNotContainAnyElementsOf(once.second());
        Set<TopicPartition> all = new TreeSet<>(once.first());
        all.addAll(once.second());
        assertThat(all).hasSize(PARTITIONS);
    }

    @Test
    void differentSeedsInterleaveDifferently() {
        List<List<String>> traces = new ArrayList<>();
        for (long seed = 1; seed <= 5; seed++) {
            traces.add(simulate(seed).trace());
        }
        assertThat(new HashSet<>(traces)).as("distinct interleavings among five seeds").hasSizeGreaterThan(1);
    }
}
