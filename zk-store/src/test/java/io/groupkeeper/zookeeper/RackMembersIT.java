package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.assignor.PartitionRacks;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.spi.CorruptNodeException;
import io.groupkeeper.spi.TopicMetadataSource;
import io.groupkeeper.spi.internal.GroupStores;
import io.groupkeeper.spi.internal.MemberInfo;
import io.groupkeeper.spi.internal.MembersSnapshot;
import io.groupkeeper.spi.internal.Registration;
import io.groupkeeper.zkprotocol.internal.NodeCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The member's rack in its member node: round trip, nodes written before racks existed (a rolling upgrade has both),
 * a non-string rack named by its path, a rack string that fails the check read as none, and the leader giving
 * partitions to members in their replicas' racks — on real ZooKeeper.
 */
class RackMembersIT extends ZkTestSupport {

    private static final String PATH = "/groupkeeper/groups/g/members/m1";

    /** The member node exactly as members before racks wrote it. */
    private static final String OLD_NODE =
            "{\"memberId\":\"old\",\"instanceId\":null,\"host\":\"h1\",\"topics\":[\"t\"],"
                    + "\"joinedAt\":\"2026-12-01T10:00:00Z\",\"assignor\":\"sticky\"}";

    private static MemberInfo info(String id, Optional<String> rack) {
        return new MemberInfo(
                id,
                Optional.empty(),
                "h1",
                new TreeSet<>(Set.of("t")),
                Instant.parse("2026-12-04T10:00:00Z"),
                "sticky",
                rack);
    }

    @Test
    void theRackRoundTripsAndIsLeftOutWhenThereIsNone() {
        MemberInfo racked = info("m1", Optional.of("eu-west-1a"));
        assertThat(NodeCodec.member(PATH, NodeCodec.member(racked))).isEqualTo(racked);
        MemberInfo plain = info("m1", Optional.empty());
        byte[] bytes = NodeCodec.member(plain);
        assertThat(new String(bytes, StandardCharsets.UTF_8)).doesNotContain("rack");
        assertThat(NodeCodec.member(PATH, bytes)).isEqualTo(plain);
    }

    @Test
    void aNodeWrittenBeforeRacksDecodesWithoutARack() {
        MemberInfo old = NodeCodec.member(PATH, OLD_NODE.getBytes(StandardCharsets.UTF_8));
        assertThat(old.memberId()).isEqualTo("old");
        assertThat(old.rack()).isEmpty();
        String withNull = OLD_NODE.replace("}", ",\"rack\":null}");
        assertThat(NodeCodec.member(PATH, withNull.getBytes(StandardCharsets.UTF_8))
                        .rack())
                .isEmpty();
    }

    @Test
    void aRackThatIsNotAStringIsOneClearErrorNamingTheNode() {
        for (String rack : new String[] {"7", "[\"a\"]", "{}"}) {
            byte[] bytes = OLD_NODE.replace("}", ",\"rack\":" + rack + "}").getBytes(StandardCharsets.UTF_8);
            assertThatThrownBy(() -> NodeCodec.member(PATH, bytes))
                    .as(rack)
                    .isInstanceOf(CorruptNodeException.class)
                    .hasMessageStartingWith("corrupt node " + PATH + ": field 'rack'");
        }
    }

    @Test
    void aStringRackThatFailsTheRackCheckIsReadAsNoRackWithOneWarningNamingTheNode() {
        Logger logger = (Logger) LoggerFactory.getLogger(NodeCodec.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        String path = PATH + "-" + UUID.randomUUID(); // warnings are once per path and value
        try {
            for (String rack : new String[] {"\"\"", "\"  \"", "\"a\\u0007b\"", "\"" + "x".repeat(256) + "\""}) {
                byte[] bytes = OLD_NODE.replace("}", ",\"rack\":" + rack + "}").getBytes(StandardCharsets.UTF_8);
                MemberInfo decoded = NodeCodec.member(path, bytes);
                assertThat(decoded.memberId()).as(rack).isEqualTo("old");
                assertThat(decoded.topics()).as(rack).containsExactly("t");
                assertThat(decoded.rack()).as(rack).isEmpty();
                assertThat(NodeCodec.member(path, bytes).rack())
                        .as("read again")
                        .isEmpty();
            }
        } finally {
            logger.detachAppender(appender);
        }
        List<String> warnings = appender.list.stream()
                .filter(e -> e.getLevel() == Level.WARN)
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
        assertThat(warnings)
                .as("one per value, not one per read")
                .hasSize(4)
                .allSatisfy(w -> assertThat(w).contains(path, "rack"));
        assertThat(warnings.get(2)).contains("a\\u0007b");
    }

    @Test
    void theLeaderReadsOldAndNewMemberNodesSideBySideAndANonStringRackIsNamedAndAnInvalidOneIgnored() throws Exception {
        String group = newGroup();
        ZooKeeperStore store = newStore();
        toClose.add(store);
        store.start();
        Registration racked = GroupStores.of(store, group).join("sticky", info("new", Optional.of("b")));
        String members = ZkLayout.members(group);
        admin.create()
                .withMode(CreateMode.EPHEMERAL)
                .forPath(members + "/old", OLD_NODE.getBytes(StandardCharsets.UTF_8));
        String bad = OLD_NODE.replace("\"old\"", "\"bad\"").replace("}", ",\"rack\":42}");
        admin.create().withMode(CreateMode.EPHEMERAL).forPath(members + "/bad", bad.getBytes(StandardCharsets.UTF_8));
        // A rack another version might accept and this one does not: the member stays in the group, without a rack.
        String longer =
                OLD_NODE.replace("\"old\"", "\"longer\"").replace("}", ",\"rack\":\"" + "r".repeat(300) + "\"}");
        admin.create()
                .withMode(CreateMode.EPHEMERAL)
                .forPath(members + "/longer", longer.getBytes(StandardCharsets.UTF_8));

        MembersSnapshot snapshot = GroupStores.of(store, group).readMembers(() -> {});

        assertThat(snapshot.members()).containsOnlyKeys("new", "old", "longer");
        assertThat(snapshot.members().get("longer").rack()).isEmpty();
        assertThat(snapshot.members().get("new").rack()).contains("b");
        assertThat(snapshot.members().get("old").rack()).isEmpty();
        assertThat(snapshot.problems())
                .singleElement()
                .asString()
                .contains(members + "/bad")
                .contains("field 'rack'");
        racked.close();
    }

    @Test
    void membersGetThePartitionsWhoseReplicasShareTheirRack() {
        String group = newGroup();
        topic("located", 4);
        // Partitions 0 and 2 have their replica in rack a, 1 and 3 in rack b.
        Map<TopicPartition, Set<String>> racks = new TreeMap<>();
        for (int p = 0; p < 4; p++) {
            racks.put(new TopicPartition("located", p), Set.of(p % 2 == 0 ? "a" : "b"));
        }
        TopicMetadataSource metadata = new TopicMetadataSource() {
            @Override
            public Map<String, Integer> partitionCounts(Collection<String> topics, Runnable onChange) {
                return topics.contains("located") ? Map.of("located", 4) : Map.of();
            }

            @Override
            public PartitionRacks partitionRacks(Collection<String> topics) {
                return PartitionRacks.of(racks);
            }
        };
        GroupKeeper gk = newKeeper();
        GroupMember first =
                gk.member(group).topics("located").rack("a").metadata(metadata).build();
        first.start();
        awaitBalanced(Map.of("located", 4), first);
        // Rack-blind, the joiner would take the highest partitions (2 and 3): one of them in the wrong rack.
        GroupMember second = newKeeper()
                .member(group)
                .topics("located")
                .rack("b")
                .metadata(metadata)
                .build();
        second.start();

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(first.assignment())
                    .containsExactly(new TopicPartition("located", 0), new TopicPartition("located", 2));
            assertThat(second.assignment())
                    .containsExactly(new TopicPartition("located", 1), new TopicPartition("located", 3));
        });
    }
}
