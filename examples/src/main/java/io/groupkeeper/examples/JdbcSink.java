package io.groupkeeper.examples;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Exactly once into a relational database, by groupkeeper's fencing token: the pattern of docs/exactly-once.md, on
 * JDBC (tested on PostgreSQL). The database, not ZooKeeper, holds the offset of record for what it stores.
 *
 * <p>Two tables. {@code sink_positions} has one row per group and partition: the next offset to store and the fencing
 * token of the owner that stored up to there. {@code sink_records} has the data, one row per input record. Every step
 * is one database transaction that first locks the partition's position row ({@code SELECT ... FOR UPDATE}):
 * <ol>
 *   <li>{@link #open}, when the partition is assigned, before its first record is processed: refuses a token lower
 *   than the stored one (this "new" owner is itself stale), stores this owner's token — from now on every former owner
 *   is refused — and returns the stored next offset, to which the consumer seeks. The lock makes the open wait for a
 *   former owner's write in flight and then see its result.</li>
 *   <li>{@link #write}, per batch of one partition: refuses a token lower than the stored one, stores the records and
 *   the next offset together. Records below the stored next offset are already in the table (a former owner stored
 *   them after this owner's consumer positioned itself, or an operator rewound the consumer): they are skipped, never
 *   stored twice.</li>
 * </ol>
 * A former owner — paused past the session timeout with a batch in hand, cut off, a frozen VM — carries a lower token
 * (tokens grow with every change of hands and never repeat), so its late write is refused whole: nothing of it lands.
 * A crash between the database commit and anything else (a ZooKeeper commit, a log line) loses and repeats nothing:
 * the next owner starts from the database's next offset.
 */
public final class JdbcSink implements AutoCloseable {

    /** What one {@link #write} did. */
    public record Written(int stored, int skipped, long nextOffset) {
    }

    private final Connection connection;
    private final String group;

    /** Connects with auto-commit off; every method is one transaction. */
    public JdbcSink(String url, String user, String password, String group) throws SQLException {
        this.connection = DriverManager.getConnection(url, user, password);
        this.connection.setAutoCommit(false);
        this.connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        this.group = group;
    }

    /** Creates the two tables if they do not exist. */
    public void createTables() throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS sink_positions (group_id TEXT NOT NULL, topic TEXT NOT NULL, "
                    + "partition INT NOT NULL, next_offset BIGINT NOT NULL, fencing_token BIGINT NOT NULL, "
                    + "PRIMARY KEY (group_id, topic, partition))");
            // No unique key on the data on purpose: exactly once is the fence's doing, and a test can see a duplicate.
            s.execute("CREATE TABLE IF NOT EXISTS sink_records (group_id TEXT NOT NULL, topic TEXT NOT NULL, "
                    + "partition INT NOT NULL, record_offset BIGINT NOT NULL, record_key TEXT, record_value TEXT, "
                    + "fencing_token BIGINT NOT NULL)");
            connection.commit();
        } catch (SQLException e) {
            rollbackQuietly();
            if (!"23505".equals(e.getSQLState()) && !"42P07".equals(e.getSQLState())) {
                throw e; // two processes creating the tables at once: the other one won, fine
            }
        }
    }

    /**
     * A new owner's first step: fences every lower token and returns the stored next offset (empty when nothing of the
     * partition is stored yet: the consumer keeps its own start position).
     *
     * @throws StaleWriteException if a higher token is stored (nothing is changed)
     */
    public OptionalLong open(TopicPartition tp, long token) throws SQLException {
        try {
            long[] row = lockRow(tp, token);
            if (row[1] > token) {
                throw new StaleWriteException(tp.toString(), token, row[1]);
            }
            update(tp, row[0], token);
            connection.commit();
            return row[0] < 0 ? OptionalLong.empty() : OptionalLong.of(row[0]);
        } catch (SQLException | RuntimeException e) {
            rollbackQuietly();
            throw e;
        }
    }

    /**
     * Stores {@code records} (all of partition {@code tp}, in offset order) and the next offset, under {@code token}.
     *
     * @throws StaleWriteException if a higher token is stored: nothing of this write lands
     */
    public Written write(TopicPartition tp, long token, List<ConsumerRecord<String, String>> records)
            throws SQLException {
        try {
            long[] row = lockRow(tp, token);
            long next = row[0];
            if (row[1] > token) {
                throw new StaleWriteException(tp.toString(), token, row[1]);
            }
            int stored = 0;
            int skipped = 0;
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO sink_records (group_id, topic, "
                    + "partition, record_offset, record_key, record_value, fencing_token) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                for (ConsumerRecord<String, String> r : records) {
                    if (r.offset() < next) {
                        skipped++;
                        continue;
                    }
                    insert.setString(1, group);
                    insert.setString(2, tp.topic());
                    insert.setInt(3, tp.partition());
                    insert.setLong(4, r.offset());
                    insert.setString(5, r.key());
                    insert.setString(6, r.value());
                    insert.setLong(7, token);
                    insert.addBatch();
                    next = r.offset() + 1;
                    stored++;
                }
                if (stored > 0) {
                    insert.executeBatch();
                }
            }
            update(tp, next, token);
            connection.commit();
            return new Written(stored, skipped, next);
        } catch (SQLException | RuntimeException e) {
            rollbackQuietly();
            throw e;
        }
    }

    /** The stored next offset of {@code tp}, read in a transaction of its own (for a consumer to seek back to). */
    public OptionalLong nextOffset(TopicPartition tp) throws SQLException {
        try (PreparedStatement q = connection.prepareStatement(
                "SELECT next_offset FROM sink_positions WHERE group_id = ? AND topic = ? AND partition = ?")) {
            bind(q, tp);
            try (ResultSet rs = q.executeQuery()) {
                OptionalLong next = rs.next() && rs.getLong(1) >= 0 ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
                connection.commit();
                return next;
            }
        } catch (SQLException e) {
            rollbackQuietly();
            throw e;
        }
    }

    /** The partition's row, locked until the transaction ends, created (empty, at {@code token}) if missing. */
    private long[] lockRow(TopicPartition tp, long token) throws SQLException {
        try (PreparedStatement create = connection.prepareStatement("INSERT INTO sink_positions (group_id, topic, "
                + "partition, next_offset, fencing_token) VALUES (?, ?, ?, -1, ?) ON CONFLICT DO NOTHING")) {
            bind(create, tp);
            create.setLong(4, token);
            create.executeUpdate();
        }
        try (PreparedStatement lock = connection.prepareStatement("SELECT next_offset, fencing_token FROM "
                + "sink_positions WHERE group_id = ? AND topic = ? AND partition = ? FOR UPDATE")) {
            bind(lock, tp);
            try (ResultSet rs = lock.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("sink_positions row of " + group + " " + tp + " vanished");
                }
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }

    private void update(TopicPartition tp, long next, long token) throws SQLException {
        try (PreparedStatement u = connection.prepareStatement("UPDATE sink_positions SET next_offset = ?, "
                + "fencing_token = ? WHERE group_id = ? AND topic = ? AND partition = ?")) {
            u.setLong(1, next);
            u.setLong(2, token);
            u.setString(3, group);
            u.setString(4, tp.topic());
            u.setInt(5, tp.partition());
            u.executeUpdate();
        }
    }

    private void bind(PreparedStatement s, TopicPartition tp) throws SQLException {
        s.setString(1, group);
        s.setString(2, tp.topic());
        s.setInt(3, tp.partition());
    }

    private void rollbackQuietly() {
        try {
            connection.rollback();
        } catch (SQLException e) {
            // the connection is gone: the transaction ends with it
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
