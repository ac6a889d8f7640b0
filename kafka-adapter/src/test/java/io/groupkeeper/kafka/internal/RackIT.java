package io.groupkeeper.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.assignor.PartitionRacks;
import io.groupkeeper.embedded.EmbeddedServers;
import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.spi.internal.GroupStores;
import io.groupkeeper.spi.internal.MemberInfo;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code client.rack} on a real broker with {@code broker.rack}: the consumer's rack reaches its member node, and the
 * leader's topic metadata hands the replicas' racks to the assignor. The embedded module runs one broker, so every
 * replica is in its rack ("r1"): the member in "r2" is remote to everything and still gets its share (balance first).
 * Locality gains on a three-rack layout are measured by {@code RackShareMain} in benchmarks.
 */
class RackIT {

    private static EmbeddedServers servers;
    private static final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void start() {
        servers = EmbeddedServers.builder()
                .brokerProperty("broker.rack", "r1")
                .quietLogs(true)
                .build()
                .start();
    }

    @AfterAll
    static void stop() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        servers.close();
    }

    private static CoordinatedConsumer<String, String> consumer(
            GroupKeeper keeper, String group, String topic, String rack) {
        CoordinatedConsumer<String, String> c = CoordinatedConsumer.<String, String>builder(keeper)
                .group(group)
                .topics(topic)
                .kafkaProperties(servers.kafka().clientProperties())
                .kafkaProperty("client.rack", rack)
                .deserializers(new StringDeserializer(), new StringDeserializer())
                .build();
        toClose.add(c);
        return c.start();
    }

    @Test
    void clientRackReachesTheMemberNodeAndReplicaRacksReachTheAssignor() {
        String topic = "racked";
        String group = "rack-group";
        servers.kafka().createTopic(topic, 4);
        ZooKeeperStore store = ZooKeeperStore.builder()
                .connectString(servers.zkConnectString())
                .build();
        GroupKeeper keeper = GroupKeeper.builder().store(store).build().start();
        toClose.add(keeper);
        CoordinatedConsumer<String, String> local = consumer(keeper, group, topic, "r1");
        CoordinatedConsumer<String, String> remote = consumer(keeper, group, topic, "r2");

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            local.poll(Duration.ofMillis(50));
            remote.poll(Duration.ofMillis(50));
            assertThat(local.assignment()).hasSize(2);
            assertThat(remote.assignment()).hasSize(2);
        });
        Map<String, MemberInfo> members =
                GroupStores.of(store, group).readMembers(() -> {}).members();
        assertThat(members.values().stream().map(m -> m.rack().orElse("-")).collect(Collectors.toSet()))
                .isEqualTo(Set.of("r1", "r2"));

        try (KafkaTopicMetadata md = new KafkaTopicMetadata(
                servers.kafka().clientProperties(), Duration.ofSeconds(1), Duration.ofSeconds(10), "rack test")) {
            PartitionRacks racks = md.partitionRacks(List.of(topic));
            Map<TopicPartition, Set<String>> expected = new TreeMap<>();
            for (int p = 0; p < 4; p++) {
                expected.put(new TopicPartition(topic, p), Set.of("r1"));
            }
            assertThat(racks).isEqualTo(PartitionRacks.of(expected));
        }
    }

    @Test
    void aClientRackGroupkeeperCannotCarryFailsStartWithOneErrorNamingTheValueAndNoMemberJoins() {
        String topic = "long-rack";
        String group = "long-rack-group";
        servers.kafka().createTopic(topic, 1);
        ZooKeeperStore store = ZooKeeperStore.builder()
                .connectString(servers.zkConnectString())
                .build();
        GroupKeeper keeper = GroupKeeper.builder().store(store).build().start();
        toClose.add(keeper);
        String rack = "r".repeat(256);

        assertThatThrownBy(() -> consumer(keeper, group, topic, rack))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("client.rack \"" + rack + "\"")
                .hasMessageContaining("at most 255 characters");
        assertThat(GroupStores.of(store, group).readMembers(() -> {}).members()).isEmpty();
    }
}
