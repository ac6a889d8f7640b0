package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.fixtures.PostgresServer;
import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.HandlerContext;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.jdbc.FencedJdbcSink;
import io.groupkeeper.kafka.jdbc.StaleTokenException;
import io.groupkeeper.zkprotocol.internal.ZkPaths;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The fencing-token sink ({@link FencedJdbcSink}) on a real PostgreSQL: its rule step by step, and in listener
 * containers through a member whose session expires while it holds a batch. Skips, saying why, where PostgreSQL
 * cannot be started ({@code PostgresServer}).
 */
class ContainerJdbcSinkIT extends ContainerTestSupport {

    private static PostgresServer pg;

    @BeforeAll
    static void startPostgres() {
        assumeTrue(
                PostgresServer.unavailable().isEmpty(),
                () -> PostgresServer.unavailable().orElse(""));
        pg = PostgresServer.start();
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE sink_data (group_id TEXT NOT NULL, topic TEXT NOT NULL, partition_id INT NOT NULL, "
                    + "record_offset BIGINT NOT NULL, record_value TEXT, fencing_token BIGINT NOT NULL)");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterAll
    static void stopPostgres() {
        if (pg != null) {
            pg.close();
        }
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(pg.jdbcUrl(), pg.user(), "");
    }

    /** The data rows, in the step's transaction. */
    private static FencedJdbcSink.RowWriter<ConsumerRecord<String, String>> rows(String group) {
        return (tx, records, token) -> {
            try (PreparedStatement insert = tx.prepareStatement("INSERT INTO sink_data VALUES (?, ?, ?, ?, ?, ?)")) {
                for (ConsumerRecord<String, String> r : records) {
                    insert.setString(1, group);
                    insert.setString(2, r.topic());
                    insert.setInt(3, r.partition());
                    insert.setLong(4, r.offset());
                    insert.setString(5, r.value());
                    insert.setLong(6, token);
                    insert.addBatch();
                }
                insert.executeBatch();
            }
        };
    }

    /**
     * The rule, deterministically: once a new owner opened a partition with its token, a former owner's write is
     * refused whole (even records the new owner has not stored: the offset check alone would take them), and so is a
     * stale open; records below the stored next offset are skipped; rows carry their tokens.
     */
    @Test
    void aFormerOwnersWriteIsRefusedWholeOnceTheNextOwnerHasOpened() throws Exception {
        String group = newName("fence");
        TopicPartition tp = new TopicPartition("fenced", 0);
        try (FencedJdbcSink sink = FencedJdbcSink.builder(ContainerJdbcSinkIT::connect)
                .group(group)
                .build()) {
            sink.createTable();
            sink.createTable(); // exists: fine
            assertThat(sink.open(tp, 5)).isEmpty();
            assertThat(sink.write(tp, 5, records(tp, 0, 10), rows(group)))
                    .isEqualTo(new FencedJdbcSink.Written(10, 0, 10));
            assertThat(sink.open(tp, 7)).hasValue(10); // the successor seeks to 10

            assertThatThrownBy(() -> sink.write(tp, 5, records(tp, 10, 5), rows(group)))
                    .isInstanceOf(StaleTokenException.class)
                    .hasMessageContaining("fenced at token 7")
                    .hasMessageContaining("carries 5");
            assertThatThrownBy(() -> sink.open(tp, 6)).isInstanceOf(StaleTokenException.class);
            assertThat(sink.nextOffset(tp)).hasValue(10);

            assertThat(sink.write(tp, 7, records(tp, 8, 6), rows(group)))
                    .as("8 and 9 are in already")
                    .isEqualTo(new FencedJdbcSink.Written(4, 2, 14));
        }
        assertThat(strings("SELECT record_offset || '@' || fencing_token FROM sink_data WHERE group_id = '" + group
                        + "' ORDER BY record_offset"))
                .containsExactly(
                        "0@5", "1@5", "2@5", "3@5", "4@5", "5@5", "6@5", "7@5", "8@5", "9@5", "10@7", "11@7", "12@7",
                        "13@7");
        assertThatThrownBy(() -> FencedJdbcSink.builder(ContainerJdbcSinkIT::connect)
                        .group("g")
                        .table("x; DROP"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'x; DROP'");
        assertThatThrownBy(() ->
                        FencedJdbcSink.builder(ContainerJdbcSinkIT::connect).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("group is required");
    }

    /**
     * Two containers store a topic through the sink (its assignment hook opens each partition with the claim's token;
     * the batch handler writes with the token the records were fetched under). Member a holds its first batch of
     * partition 0 while its ZooKeeper session is expired (a pause past the session timeout, in one JVM) until member b
     * owns partition 0: b opens it with a higher token and stores it. Then a's held batch is written: refused whole.
     * In the end every offset of both partitions is in the table exactly once.
     */
    @Test
    void everyRecordIsStoredExactlyOnceThroughASessionExpiryUnderAHeldBatch() throws Exception {
        String topic = newTopic(2);
        String group = newName("sink");
        int perPartition = 100;
        produce(topic, 2, 2 * perPartition);
        TopicPartition p0 = new TopicPartition(topic, 0);
        List<String> refused = new CopyOnWriteArrayList<>();
        AtomicBoolean holding = new AtomicBoolean(true);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<OptionalLong> heldTokens = new CopyOnWriteArrayList<>();
        try (FencedJdbcSink sink = FencedJdbcSink.builder(ContainerJdbcSinkIT::connect)
                .group(group)
                .build()) {
            sink.createTable();
            GroupKeeper keeperA = newKeeper();
            ListenerContainer<String, String> a =
                    started(sinkContainer(keeperA, group, topic, sink, refused, records -> {
                        if (records.get(0).partition() == 0 && holding.compareAndSet(true, false)) {
                            heldTokens.add(HandlerContext.fencingToken());
                            held.countDown();
                            assertThat(release.await(90, TimeUnit.SECONDS)).isTrue();
                        }
                    }));
            assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
            ListenerContainer<String, String> b =
                    started(sinkContainer(newKeeper(), group, topic, sink, refused, records -> {}));
            String memberB = b.workers().get(0).member();
            // Expire a's session until b owns partition 0 (a rejoins at once with a new session; the assignor decides).
            for (int i = 0; i < 8 && !ownedBy(group, p0, memberB); i++) {
                long before = ownerCzxid(group, p0);
                expireSession((ZooKeeperStore) keeperA.store());
                await().atMost(WAIT)
                        .ignoreExceptions()
                        .until(() -> ownerCzxid(group, p0) != before && ownerCzxid(group, p0) > 0);
            }
            assertThat(ownedBy(group, p0, memberB)).as("partition 0 with b").isTrue();
            await().atMost(WAIT).until(() -> sink.nextOffset(p0).orElse(-1) == perPartition); // b stored it all
            release.countDown();
            await().atMost(WAIT).until(() -> !refused.isEmpty());

            await().atMost(WAIT)
                    .until(() -> sink.nextOffset(new TopicPartition(topic, 1)).orElse(-1) == perPartition);
            for (int p = 0; p < 2; p++) {
                assertThat(strings(
                                "SELECT count(*) || ' ' || count(DISTINCT record_offset) || ' ' || min(record_offset)"
                                        + " || ' ' || max(record_offset) FROM sink_data WHERE group_id = '" + group
                                        + "' AND partition_id = " + p))
                        .as("partition %d: rows, distinct offsets, lowest, highest", p)
                        .containsExactly(perPartition + " " + perPartition + " 0 " + (perPartition - 1));
            }
            long tokenA = heldTokens.get(0).orElseThrow();
            assertThat(refused).first().asString().contains(topic + "-0").contains("carries " + tokenA);
            assertThat(strings("SELECT count(*) FROM sink_data WHERE group_id = '" + group
                            + "' AND partition_id = 0 AND fencing_token = " + tokenA))
                    .as("rows of a's held batch")
                    .containsExactly("0");
            System.out.printf(
                    "jdbc sink: %d records stored once each over 2 partitions; a's held batch (token %d) "
                            + "refused: %s%n",
                    2 * perPartition, tokenA, refused);
            a.stop(Duration.ofSeconds(10));
        }
    }

    private ListenerContainer<String, String> sinkContainer(
            GroupKeeper keeper,
            String group,
            String topic,
            FencedJdbcSink sink,
            List<String> refused,
            io.groupkeeper.kafka.container.BatchHandler<String, String> before) {
        return container(keeper, group, topic)
                .consumerOptions(o -> o.startPosition(StartPosition.earliest())
                        .commitInterval(Duration.ofMillis(200))
                        .metadataRefreshInterval(Duration.ofMillis(500))
                        .revocationTimeout(Duration.ofSeconds(2)))
                .kafkaProperty("max.poll.records", 20)
                .onPartitionsAssigned(sink.assignmentHook())
                .errorPolicy(ErrorPolicy.builder()
                        .on(StaleTokenException.class, ErrorAction.skip())
                        .otherwise(ErrorAction.retry(20, Backoff.fixed(Duration.ofMillis(200)))
                                .thenStopPartition())
                        .build())
                .batchHandler(records -> {
                    before.handle(records);
                    try {
                        sink.writeHandled(records, rows(group));
                    } catch (StaleTokenException e) {
                        refused.add(e.getMessage());
                        throw e;
                    }
                })
                .build();
    }

    private static List<ConsumerRecord<String, String>> records(TopicPartition tp, long from, int count) {
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        for (long o = from; o < from + count; o++) {
            out.add(new ConsumerRecord<>(tp.topic(), tp.partition(), o, "k" + o, "v" + o));
        }
        return out;
    }

    private static List<String> strings(String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    /** Whether {@code member} owns the partition (its owner node names it). */
    private static boolean ownedBy(String group, TopicPartition tp, String member) throws Exception {
        try {
            byte[] body = zk.curator()
                    .getData()
                    .forPath(ZkPaths.owner(group, io.groupkeeper.TopicPartition.of(tp.topic(), tp.partition())));
            return new String(body, StandardCharsets.UTF_8).contains("\"" + member + "\"");
        } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
            return false;
        }
    }

    private static long ownerCzxid(String group, TopicPartition tp) throws Exception {
        org.apache.zookeeper.data.Stat s = zk.curator()
                .checkExists()
                .forPath(ZkPaths.owner(group, io.groupkeeper.TopicPartition.of(tp.topic(), tp.partition())));
        return s == null ? -1 : s.getCzxid();
    }

    /** Expires a client's session on the server, as a long network partition would (the client then reconnects). */
    private static void expireSession(ZooKeeperStore store) throws Exception {
        org.apache.zookeeper.ZooKeeper client =
                store.curator().getZookeeperClient().getZooKeeper();
        org.apache.zookeeper.ZooKeeper imposter = new org.apache.zookeeper.ZooKeeper(
                servers.zkConnectString(), 10_000, e -> {}, client.getSessionId(), client.getSessionPasswd());
        await().atMost(Duration.ofSeconds(10)).until(() -> imposter.getState().isConnected());
        imposter.close();
    }
}
