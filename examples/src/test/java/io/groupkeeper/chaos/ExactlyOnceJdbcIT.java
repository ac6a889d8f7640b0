package io.groupkeeper.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.groupkeeper.embedded.EmbeddedServers;
import io.groupkeeper.examples.JdbcSink;
import io.groupkeeper.fixtures.PostgresServer;
import io.groupkeeper.kafka.jdbc.FencedJdbcSink;
import io.groupkeeper.kafka.jdbc.StaleTokenException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Exactly once into a real PostgreSQL by the fencing token (docs/exactly-once.md): three processes of the examples'
 * {@code jdbc-sink} command store a topic that is being written into one table while one of them is killed with
 * {@code SIGKILL} (no final commit, its session times out) and another is stopped with {@code SIGSTOP} until its
 * session has expired and its partitions have moved on, then continued (a zombie with a batch in hand). In the end
 * every record of the log is in the table exactly once: each offset below each partition's log end, once.
 *
 * <p>Skips, saying why, where PostgreSQL cannot be started (Debian's {@code postgresql} package; {@code .ci/run}
 * installs it).
 */
class ExactlyOnceJdbcIT {

    private static final String TOPIC = "ledger";
    private static final int PARTITIONS = 4;
    private static final String GROUP = "ledger-sink";
    private static final Duration SESSION = Duration.ofSeconds(4);

    /**
     * A process stopped (SIGSTOP) inside a database transaction keeps its partition's row locked, and its successor's
     * open waits for it (docs/exactly-once.md): PostgreSQL ends such a transaction after 3 s idle, so the successor
     * goes on while the zombie stays stopped (its later steps then fail and it seeks back, or is refused).
     */
    private static final String IDLE_IN_TRANSACTION = "?options=-c%20idle_in_transaction_session_timeout%3D3000";

    private static PostgresServer pg;

    @BeforeAll
    static void startPostgres() {
        assumeTrue(
                PostgresServer.unavailable().isEmpty(),
                () -> PostgresServer.unavailable().orElse(""));
        pg = PostgresServer.start();
    }

    @AfterAll
    static void stopPostgres() {
        if (pg != null) {
            pg.close();
        }
    }

    /**
     * The token alone, deterministically: once a new owner has opened a partition with its token, a former owner's
     * write is refused whole, even for records the new owner has not stored yet (the offset check alone would take
     * them), and a stale open is refused too.
     */
    @Test
    void aFormerOwnersWriteIsRefusedWholeOnceTheNextOwnerHasOpened() throws Exception {
        TopicPartition tp = new TopicPartition("fenced", 0);
        try (JdbcSink former = new JdbcSink(pg.jdbcUrl(), pg.user(), "", "fence-test");
                JdbcSink next = new JdbcSink(pg.jdbcUrl(), pg.user(), "", "fence-test")) {
            former.createTables();
            assertThat(former.open(tp, 5)).isEmpty();
            assertThat(former.write(tp, 5, records(tp, 0, 10))).isEqualTo(new FencedJdbcSink.Written(10, 0, 10));
            assertThat(next.open(tp, 7)).hasValue(10); // the successor seeks to 10

            assertThatThrownBy(() -> former.write(tp, 5, records(tp, 10, 5))) // records the successor has not stored
                    .isInstanceOf(StaleTokenException.class)
                    .hasMessageContaining("fenced at token 7")
                    .hasMessageContaining("carries 5");
            assertThatThrownBy(() -> former.open(tp, 6)).isInstanceOf(StaleTokenException.class);
            assertThat(next.nextOffset(tp)).hasValue(10);

            assertThat(next.write(tp, 7, records(tp, 8, 6)))
                    .as("8 and 9 are in already")
                    .isEqualTo(new FencedJdbcSink.Written(4, 2, 14));
        }
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.user(), "");
                Statement s = c.createStatement()) {
            assertThat(strings(
                            s,
                            "SELECT record_offset || '@' || fencing_token FROM sink_records WHERE group_id = "
                                    + "'fence-test' ORDER BY record_offset"))
                    .containsExactly(
                            "0@5", "1@5", "2@5", "3@5", "4@5", "5@5", "6@5", "7@5", "8@5", "9@5", "10@7", "11@7",
                            "12@7", "13@7");
        }
    }

    private static List<ConsumerRecord<String, String>> records(TopicPartition tp, long from, int count) {
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        for (long o = from; o < from + count; o++) {
            out.add(new ConsumerRecord<>(tp.topic(), tp.partition(), o, "k" + o, "v" + o));
        }
        return out;
    }

    /**
     * About 40 s on an idle 2-core machine (three JVMs, two session timeouts): tagged {@code long}, run with
     * {@code mvn -pl examples -am verify -Plong -Dtest=ExactlyOnceJdbcIT -Dsurefire.failIfNoSpecifiedTests=false}.
     */
    @Test
    @Tag("long")
    void everyRecordIsStoredExactlyOnceThroughAKillNineAndAPausePastTheSessionTimeout() throws Exception {
        Path logs = Path.of("target", "exactly-once-jdbc");
        Files.createDirectories(logs);
        List<Process> processes = new ArrayList<>();
        try (EmbeddedServers servers = EmbeddedServers.startDefault();
                Admin admin = Admin.create(Map.of("bootstrap.servers", servers.bootstrapServers()))) {
            servers.kafka().createTopic(TOPIC, PARTITIONS);
            try (RecordProducer producer =
                    new RecordProducer(servers.bootstrapServers(), TOPIC, () -> PARTITIONS).start(10, 10)) {
                for (String name : List.of("a", "b", "c")) {
                    processes.add(sink(name, servers, logs));
                }
                Process a = processes.get(0);
                Process b = processes.get(1);
                await().atMost(Duration.ofSeconds(90)).until(() -> rows() >= 500);

                a.destroyForcibly(); // kill -9: no final commit; its partitions move on once its session expired
                Map<Integer, Long> atKill = ExampleProcesses.logEnds(admin, TOPIC, PARTITIONS);
                await().atMost(Duration.ofSeconds(60)).until(() -> storedPast(atKill));

                ExampleProcesses.signal(
                        b, "STOP"); // a pause past the session timeout, most likely with a batch in hand
                Map<Integer, Long> atStop = ExampleProcesses.logEnds(admin, TOPIC, PARTITIONS);
                await().atMost(Duration.ofSeconds(60)).until(() -> storedPast(atStop));
                ExampleProcesses.signal(
                        b, "CONT"); // the zombie goes on with what it held: its writes carry its old tokens

                producer.stop();
            }
            Map<Integer, Long> end = ExampleProcesses.logEnds(admin, TOPIC, PARTITIONS);
            await().atMost(Duration.ofSeconds(60)).until(() -> storedPast(end));

            long expected = end.values().stream().mapToLong(Long::longValue).sum();
            try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.user(), "");
                    Statement s = c.createStatement()) {
                List<String> duplicates = strings(
                        s,
                        "SELECT partition || ':' || record_offset || ' x' || count(*) "
                                + "FROM sink_records WHERE group_id = '" + GROUP
                                + "' GROUP BY partition, record_offset HAVING count(*) > 1 ORDER BY 1 LIMIT 20");
                assertThat(duplicates).as("records stored more than once").isEmpty();
                for (Map.Entry<Integer, Long> e : end.entrySet()) {
                    List<String> range = strings(
                            s,
                            "SELECT count(DISTINCT record_offset) || ' ' || "
                                    + "coalesce(min(record_offset), -1) || ' ' || coalesce(max(record_offset), -1) "
                                    + "FROM sink_records WHERE group_id = '" + GROUP + "' AND partition = "
                                    + e.getKey());
                    assertThat(range)
                            .as("partition %d: count, lowest and highest offset stored", e.getKey())
                            .containsExactly(e.getValue() + " 0 " + (e.getValue() - 1));
                }
                assertThat(strings(s, "SELECT count(*) FROM sink_records WHERE group_id = '" + GROUP + "'"))
                        .containsExactly(Long.toString(expected));
            }
            long refused = Files.readAllLines(logs.resolve("b.stdout")).stream()
                    .filter(l -> l.contains("\"refused\":true"))
                    .count();
            System.out.printf(
                    "exactly-once-jdbc: %d records stored once each over %d partitions; the paused "
                            + "process had %d late write(s) refused%n",
                    expected, PARTITIONS, refused);
        } finally {
            ExampleProcesses.stopAll(processes);
        }
    }

    private static Process sink(String name, EmbeddedServers servers, Path logs) throws IOException {
        return ExampleProcesses.start(
                "jdbc-sink",
                name,
                logs,
                List.of(
                        "--zk",
                        servers.zkConnectString(),
                        "--bootstrap",
                        servers.bootstrapServers(),
                        "--group",
                        GROUP,
                        "--topic",
                        TOPIC,
                        "--jdbc-url",
                        pg.jdbcUrl() + IDLE_IN_TRANSACTION,
                        "--jdbc-user",
                        pg.user(),
                        "--session-timeout-ms",
                        Long.toString(SESSION.toMillis()),
                        "--work-us-per-record",
                        "500",
                        "-X",
                        "max.poll.records=100",
                        "-X",
                        "fetch.max.wait.ms=100"));
    }

    /** Whether the database's next offset of every partition has reached {@code ends}. */
    private static boolean storedPast(Map<Integer, Long> ends) throws SQLException {
        Map<Integer, Long> next = new HashMap<>();
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.user(), "");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT partition_id, next_offset FROM " + FencedJdbcSink.DEFAULT_TABLE
                        + " WHERE group_id = '" + GROUP + "'")) {
            while (rs.next()) {
                next.put(rs.getInt(1), rs.getLong(2));
            }
        }
        return ends.entrySet().stream().allMatch(e -> next.getOrDefault(e.getKey(), -1L) >= e.getValue());
    }

    private static long rows() {
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.user(), "");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM sink_records WHERE group_id = '" + GROUP + "'")) {
            return rs.next() ? rs.getLong(1) : 0;
        } catch (SQLException e) {
            return 0; // the tables are not created yet
        }
    }

    private static List<String> strings(Statement s, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
