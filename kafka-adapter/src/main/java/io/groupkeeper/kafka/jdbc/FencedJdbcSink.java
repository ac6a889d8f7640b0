package io.groupkeeper.kafka.jdbc;

import io.groupkeeper.kafka.container.AssignmentHook;
import io.groupkeeper.kafka.container.HandlerContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Exactly once into a transactional JDBC database, by groupkeeper's fencing token (docs/exactly-once.md, "Into a
 * database"). The database, not ZooKeeper, holds the offset of record for what it stores: one row per group and
 * partition in a positions table (default {@value #DEFAULT_TABLE}: the next offset to store, and the fencing token of
 * the owner that stored or opened last). Your rows go into your own tables, through a {@link RowWriter}, in the same
 * transaction.
 *
 * <p><b>The rule.</b> Every step is one database transaction that first locks the partition's positions row:
 * <ol>
 *   <li><b>Open with the partition's token at the assignment, before processing</b> ({@link #open}, or
 *   {@link #assignmentHook()} for a listener container): a token lower than the stored one is refused (this "new" owner
 *   is itself stale); this owner's token is stored — from then on every former owner is refused — and the stored next
 *   offset is returned, where the consumer seeks. The row lock makes the open wait for a former owner's write in
 *   flight, and then see it.</li>
 *   <li><b>Write data + next offset + token in one transaction</b> ({@link #write}): a token lower than the stored one
 *   is refused whole ({@link StaleTokenException}: nothing lands); records below the stored next offset are already
 *   stored and skipped; the rest go to the {@link RowWriter} and the next offset moves past them, committed together.
 *   </li>
 *   <li><b>The token is the one taken at the claim</b>, kept with the records fetched under it — never the live token
 *   re-read at write time: a record of an earlier ownership would carry a later owner's token and be accepted. In a
 *   listener container: {@link AssignmentHook.Seeker#fencingToken} at the assignment and
 *   {@link HandlerContext#fencingToken()} in the handler are that token ({@link #writeHandled}); with a
 *   {@code CoordinatedConsumer}, take {@code fencingToken(tp)} in {@code onPartitionsAssigned} and keep it.</li>
 * </ol>
 * A former owner — paused past the session timeout with a batch in hand, cut off, a frozen VM — carries a lower token
 * (tokens grow with every change of hands and never repeat), so its late write is refused whole. A crash between the
 * database commit and anything else (a ZooKeeper commit, a log line) loses and repeats nothing: the next owner starts
 * from the database's next offset.
 *
 * <pre>{@code
 * FencedJdbcSink sink = FencedJdbcSink.builder(dataSource::getConnection).group("orders-sink").build();
 * sink.createTable();
 * ListenerContainer.<String, String>builder(keeper).group("orders-sink").topics("orders")
 *         .onPartitionsAssigned(sink.assignmentHook())                 // open with the claim's token, seek
 *         .batchHandler(records -> sink.writeHandled(records, (tx, rows, token) -> insertOrders(tx, rows)))
 *         .errorPolicy(ErrorPolicy.builder().on(StaleTokenException.class, ErrorAction.skip()) // a former owner
 *                 .otherwise(ErrorAction.retry(5, Backoff.fixed(Duration.ofSeconds(1))).thenStopPartition()).build())
 *         ...
 * }</pre>
 *
 * <p>Portable SQL only (the row is locked by an {@code UPDATE} of itself, created by an {@code INSERT} when missing;
 * read-committed isolation), for any database with row locks and transactions; tested on PostgreSQL. Each thread uses
 * its own connection, opened from the {@link ConnectionSource} on first use, auto-commit off (a listener container's
 * hook and handler run on the same worker thread, so they share one); {@link #close()} closes them all. A connection
 * that fails is closed and a new one opened at the thread's next step.
 */
public final class FencedJdbcSink implements AutoCloseable {

    /** The positions table unless {@link Builder#table} names another. */
    public static final String DEFAULT_TABLE = "groupkeeper_sink_positions";

    /** Opens a connection to the database (e.g. {@code dataSource::getConnection}). */
    @FunctionalInterface
    public interface ConnectionSource {
        Connection connect() throws SQLException;
    }

    /**
     * Stores the rows of records in the step's transaction: insert, do not commit or roll back. Gets only the records
     * not stored yet (at or past the stored next offset), in offset order, and the token they are stored under.
     */
    @FunctionalInterface
    public interface RowWriter<R> {
        void write(Connection transaction, List<R> records, long token) throws SQLException;
    }

    /** What one {@link #write} did: records stored, records skipped (stored before), the next offset now. */
    public record Written(int stored, int skipped, long nextOffset) {}

    private static final int INSERT_RACES = 3;

    private final ConnectionSource source;
    private final String group;
    private final String table;
    private final ThreadLocal<Connection> connection = new ThreadLocal<>();
    private final Set<Connection> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private FencedJdbcSink(Builder b) {
        this.source = b.source;
        this.group = b.group;
        this.table = b.table;
    }

    public static Builder builder(ConnectionSource connections) {
        return new Builder(connections);
    }

    /** Creates the positions table unless it exists (another process creating it at the same time is fine). */
    public void createTable() throws SQLException {
        Connection c = connection();
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (group_id VARCHAR(255) NOT NULL, topic VARCHAR(255) NOT NULL, "
                    + "partition_id INTEGER NOT NULL, next_offset BIGINT NOT NULL, fencing_token BIGINT NOT NULL, "
                    + "PRIMARY KEY (group_id, topic, partition_id))");
            c.commit();
        } catch (SQLException e) {
            rollbackQuietly(c);
            if (!exists(c)) {
                throw failed(c, e);
            }
        }
    }

    /**
     * A new owner's first step, with the token of its claim: fences every lower token and returns the stored next
     * offset (empty when nothing of the partition is stored yet: the consumer keeps its own start position).
     *
     * @throws StaleTokenException if a higher token is stored (nothing is changed)
     */
    public OptionalLong open(TopicPartition tp, long token) throws SQLException {
        return step(c -> {
            long[] row = lockRow(c, tp, token);
            if (row[1] > token) {
                throw new StaleTokenException(tp, OptionalLong.of(token), row[1]);
            }
            update(c, tp, row[0], token);
            return row[0] < 0 ? OptionalLong.empty() : OptionalLong.of(row[0]);
        });
    }

    /**
     * Stores {@code records} (all of partition {@code tp}, in offset order) through {@code rows}, and the next offset
     * past them, under {@code token}, in one transaction.
     *
     * @throws StaleTokenException if a higher token is stored: nothing of this write lands
     */
    public <R> Written write(
            TopicPartition tp, long token, List<R> records, ToLongFunction<R> offsetOf, RowWriter<R> rows)
            throws SQLException {
        Objects.requireNonNull(rows, "rows");
        return step(c -> {
            long[] row = lockRow(c, tp, token);
            if (row[1] > token) {
                throw new StaleTokenException(tp, OptionalLong.of(token), row[1]);
            }
            long next = row[0];
            List<R> fresh = new ArrayList<>(records.size());
            for (R r : records) {
                long offset = offsetOf.applyAsLong(r);
                if (offset >= next) {
                    fresh.add(r);
                    next = offset + 1;
                }
            }
            if (!fresh.isEmpty()) {
                rows.write(c, fresh, token);
            }
            update(c, tp, next, token);
            return new Written(fresh.size(), records.size() - fresh.size(), next);
        });
    }

    /** {@link #write(TopicPartition, long, List, ToLongFunction, RowWriter)} for Kafka records. */
    public <K, V> Written write(
            TopicPartition tp, long token, List<ConsumerRecord<K, V>> records, RowWriter<ConsumerRecord<K, V>> rows)
            throws SQLException {
        return write(tp, token, records, ConsumerRecord::offset, rows);
    }

    /**
     * From a listener container's handler (record or batch, one partition's records): writes them under the token of
     * the claim they were fetched under ({@link HandlerContext#fencingToken()}).
     *
     * @throws StaleTokenException if a higher token is stored, or the records were fetched under no claim
     * @throws IllegalStateException outside a handler call
     */
    public <K, V> Written writeHandled(List<ConsumerRecord<K, V>> records, RowWriter<ConsumerRecord<K, V>> rows)
            throws SQLException {
        TopicPartition tp = HandlerContext.partition()
                .orElseThrow(() -> new IllegalStateException(
                        "FencedJdbcSink.writeHandled is for a listener container's handler call, on its thread"));
        OptionalLong token = HandlerContext.fencingToken();
        if (token.isEmpty()) {
            throw new StaleTokenException(tp, token, -1);
        }
        return write(tp, token.getAsLong(), records, rows);
    }

    /**
     * The listener container's assignment hook of this sink: opens every partition gained with the claim's token
     * ({@link AssignmentHook.Seeker#fencingToken}) and seeks to the stored next offset, before the first record.
     */
    public AssignmentHook assignmentHook() {
        return (partitions, seeker) -> {
            for (TopicPartition tp : partitions) {
                OptionalLong token = seeker.fencingToken(tp);
                if (token.isEmpty()) {
                    continue; // lost again already: nothing of it is handed out under this claim
                }
                OptionalLong next = open(tp, token.getAsLong());
                if (next.isPresent()) {
                    seeker.seek(tp, next.getAsLong());
                }
            }
        };
    }

    /** The stored next offset of {@code tp} (empty: nothing stored), read in a transaction of its own. */
    public OptionalLong nextOffset(TopicPartition tp) throws SQLException {
        return step(c -> {
            try (PreparedStatement q = c.prepareStatement(
                    "SELECT next_offset FROM " + table + " WHERE group_id = ? AND topic = ? AND partition_id = ?")) {
                bind(q, tp);
                try (ResultSet rs = q.executeQuery()) {
                    return rs.next() && rs.getLong(1) >= 0 ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
                }
            }
        });
    }

    public String group() {
        return group;
    }

    public String table() {
        return table;
    }

    /** Closes every thread's connection. */
    @Override
    public void close() throws SQLException {
        closed = true;
        SQLException first = null;
        for (Connection c : open) {
            try {
                c.close();
            } catch (SQLException e) {
                first = first == null ? e : first;
            }
        }
        open.clear();
        if (first != null) {
            throw first;
        }
    }

    // ------------------------------------------------------------------ steps

    private interface Step<T> {
        T run(Connection c) throws SQLException;
    }

    /** One transaction: committed when {@code step} returns, rolled back when it throws; a lost insert race retried. */
    private <T> T step(Step<T> step) throws SQLException {
        for (int race = 1; ; race++) {
            Connection c = connection();
            try {
                T result = step.run(c);
                c.commit();
                return result;
            } catch (SQLException e) {
                rollbackQuietly(c);
                if (race < INSERT_RACES && isUniqueViolation(e)) {
                    continue; // another owner created the row at the same time: lock it now
                }
                throw failed(c, e);
            } catch (RuntimeException e) {
                rollbackQuietly(c);
                throw e;
            }
        }
    }

    /**
     * The partition's row, locked until the transaction ends (an {@code UPDATE} of itself: a row lock in every
     * transactional database), created (empty, at {@code token}) if missing. Returns {next offset, token}.
     */
    private long[] lockRow(Connection c, TopicPartition tp, long token) throws SQLException {
        int locked;
        try (PreparedStatement lock = c.prepareStatement("UPDATE " + table
                + " SET next_offset = next_offset WHERE group_id = ? AND topic = ? AND partition_id = ?")) {
            bind(lock, tp);
            locked = lock.executeUpdate();
        }
        if (locked == 0) {
            try (PreparedStatement create = c.prepareStatement("INSERT INTO " + table
                    + " (group_id, topic, partition_id, next_offset, fencing_token) VALUES (?, ?, ?, -1, ?)")) {
                bind(create, tp);
                create.setLong(4, token);
                create.executeUpdate(); // (locked by the insert; a concurrent one fails: the step is tried again)
            }
        }
        try (PreparedStatement read = c.prepareStatement("SELECT next_offset, fencing_token FROM " + table
                + " WHERE group_id = ? AND topic = ? AND partition_id = ?")) {
            bind(read, tp);
            try (ResultSet rs = read.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException(table + " row of group " + group + " " + tp + " vanished");
                }
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }

    private void update(Connection c, TopicPartition tp, long next, long token) throws SQLException {
        try (PreparedStatement u = c.prepareStatement("UPDATE " + table
                + " SET next_offset = ?, fencing_token = ? WHERE group_id = ? AND topic = ? AND partition_id = ?")) {
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

    private boolean exists(Connection c) {
        try (Statement s = c.createStatement()) {
            s.executeQuery("SELECT next_offset FROM " + table + " WHERE 1 = 0").close();
            c.commit();
            return true;
        } catch (SQLException e) {
            rollbackQuietly(c);
            return false;
        }
    }

    private static boolean isUniqueViolation(SQLException e) {
        return e.getSQLState() != null && e.getSQLState().startsWith("23");
    }

    // ------------------------------------------------------------------ connections

    private Connection connection() throws SQLException {
        if (closed) {
            throw new IllegalStateException("FencedJdbcSink of group " + group + " is closed");
        }
        Connection c = connection.get();
        if (c != null) {
            return c;
        }
        c = Objects.requireNonNull(source.connect(), "the connection source returned null");
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        connection.set(c);
        open.add(c);
        return c;
    }

    /** A failed step: a connection that no longer works is closed, and the thread's next step opens another. */
    private SQLException failed(Connection c, SQLException e) {
        boolean valid;
        try {
            valid = c.isValid(2);
        } catch (SQLException ignored) {
            valid = false;
        }
        if (!valid) {
            connection.remove();
            open.remove(c);
            try {
                c.close();
            } catch (SQLException ignored) {
                // gone already
            }
        }
        return e;
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException e) {
            // the connection is gone: the transaction ends with it
        }
    }

    /** Configures a {@link FencedJdbcSink}; {@link #build()} fails fast naming what is missing or bad. */
    public static final class Builder {
        private final ConnectionSource source;
        private String group;
        private String table = DEFAULT_TABLE;

        private Builder(ConnectionSource source) {
            this.source = Objects.requireNonNull(source, "connection source");
        }

        /** The consumer group whose partitions this sink stores (one positions row per group and partition). */
        public Builder group(String group) {
            this.group = Objects.requireNonNull(group, "group");
            return this;
        }

        /** The positions table; default {@value FencedJdbcSink#DEFAULT_TABLE}. A plain SQL identifier. */
        public Builder table(String table) {
            Objects.requireNonNull(table, "table");
            if (!table.matches("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?")) {
                throw new IllegalArgumentException("FencedJdbcSink table must be a plain SQL identifier "
                        + "(letters, digits, _; optionally schema.table), was '" + table + "'");
            }
            this.table = table;
            return this;
        }

        public FencedJdbcSink build() {
            if (group == null || group.isBlank()) {
                throw new IllegalStateException("FencedJdbcSink: group is required");
            }
            return new FencedJdbcSink(this);
        }
    }
}
