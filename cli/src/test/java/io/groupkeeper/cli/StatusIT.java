package io.groupkeeper.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code groups describe --status}: Burrow-style statuses from real commit sequences, log ends from Kafka. */
class StatusIT extends CliTestSupport {

    private static String topic;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void data() {
        topic = unique("st");
        topic(topic, 2);
        for (int p = 0; p < 2; p++) {
            produce(topic, p, 10, i -> System.currentTimeMillis());
        }
    }

    @AfterEach
    void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        toClose.clear();
    }

    private GroupMember member(String group) {
        GroupKeeper gk = GroupKeeper.builder()
                .store(ZooKeeperStore.builder().connectString(zk()).build())
                .build()
                .start();
        toClose.add(gk);
        GroupMember m = gk.member(group).topics(topic).build();
        m.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> m.assignment().size() == 2);
        return m;
    }

    /** Commits {@code offsets} in turn to every partition, recording Kafka's log end (10) with each commit. */
    private static void commits(GroupMember m, long... offsets) {
        for (long o : offsets) {
            for (TopicPartition tp : m.assignment()) {
                assertThat(m.commit(Map.of(tp, o), Map.of(tp, 10L)).allCommitted())
                        .isTrue();
            }
        }
    }

    @Test
    void aHealthyGroupIsOk() {
        String group = unique("healthy");
        commits(member(group), 4, 8, 10);
        String out = gkb("groups", "describe", "--group", group, "--status").ok();
        assertThat(out).contains("STATUS      OK (over the last 5m)");
        assertThat(out.lines().filter(l -> l.startsWith(topic))).hasSize(2).allMatch(l -> l.contains(" OK "));
    }

    /** Shards of work that is not Kafka: no log end, so nothing says the work is done (issue 48). */
    @Test
    void aShardsGroupAtWorkIsNotCalledCaughtUp() {
        String group = unique("shards");
        String shards = unique("shards");
        registerTopic(shards, 2);
        GroupKeeper gk = GroupKeeper.builder()
                .store(ZooKeeperStore.builder().connectString(zk()).build())
                .build()
                .start();
        toClose.add(gk);
        GroupMember m = gk.member(group).topics(shards).build();
        m.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> m.assignment().size() == 2);
        for (long o : new long[] {100, 200}) {
            for (TopicPartition tp : m.assignment()) {
                assertThat(m.commit(Map.of(tp, o)).allCommitted()).isTrue();
            }
        }
        String out = gk("groups", "describe", "--group", group, "--status").ok();
        assertThat(out).doesNotContain("caught up");
        assertThat(out.lines().filter(l -> l.startsWith(shards)))
                .hasSize(2)
                .allMatch(l -> l.contains("2 commit(s) in the window, up to offset 200 (lag unknown: no log end)"));
    }

    @Test
    void aGroupCommittingTheSameOffsetWhileLaggingStalls() throws Exception {
        String group = unique("stalled");
        commits(member(group), 3, 3, 3);
        String out = gkb("groups", "describe", "--group", group, "--status").ok();
        assertThat(out).contains("STATUS      STALL");
        assertThat(out).contains("3 commits of offset 3 in the window, lag 7");

        JsonNode json = new ObjectMapper()
                .readTree(gkb("groups", "describe", "--group", group, "--status", "--output", "json")
                        .ok());
        assertThat(json.get("status").asText()).isEqualTo("STALL");
        assertThat(json.get("partitions").get(0).get("status").asText()).isEqualTo("STALL");
    }

    @Test
    void aLiveResetBackwardsShowsAsRewind() {
        String group = unique("rewound");
        commits(member(group), 6, 9);
        gkb("offsets", "reset", "--group", group, "--all-topics", "--to-offset", "2", "--execute")
                .ok();
        String out = gkb("groups", "describe", "--group", group, "--status").ok();
        assertThat(out).contains("STATUS      REWIND").contains("offset moved back from 9 to 2");
    }

    @Test
    void withoutStatusTheOutputIsUnchanged() {
        String group = unique("plain");
        commits(member(group), 10);
        assertThat(gkb("groups", "describe", "--group", group).ok())
                .doesNotContain("STATUS")
                .doesNotContain("WHY");
    }
}
