package io.groupkeeper.examples;

import io.groupkeeper.kafka.jdbc.FencedJdbcSink;
import io.groupkeeper.kafka.jdbc.StaleTokenException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The {@code jdbc-sink} command's store: groupkeeper's {@link FencedJdbcSink} (the fencing-token pattern of
 * docs/exactly-once.md: positions table, row lock, refusal of a lower token, the next offset in the same transaction)
 * with one data table of its own, {@code sink_records}, one row per input record and the token it was stored under.
 * No unique key on the data on purpose: exactly once is the fence's doing, and a test can see a duplicate.
 */
public final class JdbcSink implements AutoCloseable {

    private final String url;
    private final String user;
    private final String password;
    private final String group;
    private final FencedJdbcSink sink;

    public JdbcSink(String url, String user, String password, String group) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.group = group;
        this.sink = FencedJdbcSink.builder(() -> DriverManager.getConnection(url, user, password))
                .group(group)
                .build();
    }

    /** Creates the positions table and {@code sink_records} if they do not exist. */
    public void createTables() throws SQLException {
        sink.createTable();
        try (Connection c = DriverManager.getConnection(url, user, password);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS sink_records (group_id TEXT NOT NULL, topic TEXT NOT NULL, "
                    + "partition INT NOT NULL, record_offset BIGINT NOT NULL, record_key TEXT, record_value TEXT, "
                    + "fencing_token BIGINT NOT NULL)");
        } catch (SQLException e) {
            if (!"23505".equals(e.getSQLState()) && !"42P07".equals(e.getSQLState())) {
                throw e; // two processes creating the table at once: the other one won, fine
            }
        }
    }

    /**
     * A new owner's first step: fences every lower token and returns the stored next offset (empty: nothing stored).
     *
     * @throws StaleTokenException if a higher token is stored (nothing is changed)
     */
    public OptionalLong open(TopicPartition tp, long token) throws SQLException {
        return sink.open(tp, token);
    }

    /**
     * Stores {@code records} (all of {@code tp}, in offset order) and the next offset under {@code token}.
     *
     * @throws StaleTokenException if a higher token is stored: nothing of this write lands
     */
    public FencedJdbcSink.Written write(TopicPartition tp, long token, List<ConsumerRecord<String, String>> records)
            throws SQLException {
        return sink.write(tp, token, records, this::insert);
    }

    /** The stored next offset of {@code tp} (for a consumer to seek back to). */
    public OptionalLong nextOffset(TopicPartition tp) throws SQLException {
        return sink.nextOffset(tp);
    }

    private void insert(Connection tx, List<ConsumerRecord<String, String>> records, long token) throws SQLException {
        try (PreparedStatement insert = tx.prepareStatement("INSERT INTO sink_records (group_id, topic, partition, "
                + "record_offset, record_key, record_value, fencing_token) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            for (ConsumerRecord<String, String> r : records) {
                insert.setString(1, group);
                insert.setString(2, r.topic());
                insert.setInt(3, r.partition());
                insert.setLong(4, r.offset());
                insert.setString(5, r.key());
                insert.setString(6, r.value());
                insert.setLong(7, token);
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }

    @Override
    public void close() throws SQLException {
        sink.close();
    }
}
