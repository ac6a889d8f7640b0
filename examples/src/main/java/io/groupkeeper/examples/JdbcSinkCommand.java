package io.groupkeeper.examples;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.kafka.jdbc.FencedJdbcSink;
import io.groupkeeper.kafka.jdbc.StaleTokenException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * One member of a group that stores every record of a topic into a database table exactly once, fenced by
 * groupkeeper's fencing token ({@link JdbcSink}: the library's {@link FencedJdbcSink} with one data table;
 * docs/exactly-once.md). Run several; kill one with {@code kill -9} or stop it past the session timeout with
 * {@code kill -STOP}: every input record is in {@code sink_records} once.
 */
@Command(
        name = "jdbc-sink",
        mixinStandardHelpOptions = true,
        description = {
            "Stores every record of a topic into a JDBC database exactly once (tables sink_records and",
            "groupkeeper_sink_positions, created if missing): the data, the next offset and the partition's fencing token in one",
            "database transaction; a former owner's late write is refused. On assignment the consumer seeks to the",
            "database's next offset. SIGTERM: leave gracefully. Logs on stderr, one JSON line per stored batch on",
            "stdout: {\"member\",\"topic\",\"partition\",\"token\",\"stored\",\"skipped\",\"next\"}; a refused write",
            "prints {\"member\",\"topic\",\"partition\",\"refused\":true,\"token\",\"current\"}."
        })
final class JdbcSinkCommand implements Callable<Integer> {

    @Mixin
    MemberOptions member;

    @Option(names = "--topic", required = true, description = "the topic to store")
    String topic;

    @Option(
            names = "--jdbc-url",
            required = true,
            paramLabel = "URL",
            description = "e.g. jdbc:postgresql://127.0.0.1:5432/postgres")
    String jdbcUrl;

    @Option(names = "--jdbc-user", defaultValue = "postgres", description = "default: ${DEFAULT-VALUE}")
    String jdbcUser;

    @Option(names = "--jdbc-password", defaultValue = "", description = "default: none")
    String jdbcPassword;

    @Option(
            names = "--start",
            defaultValue = "earliest",
            description = "where a partition the database has not seen starts: earliest, latest or an ISO-8601 "
                    + "instant (default: ${DEFAULT-VALUE})")
    String start;

    @Option(
            names = "--work-us-per-record",
            defaultValue = "0",
            description = "simulated processing time per record, in microseconds, before a batch is stored (to watch "
                    + "a pause land in the middle of a batch; default: ${DEFAULT-VALUE})")
    long workMicrosPerRecord;

    /** Fencing tokens of the partitions opened in the database, taken at their assignment (see FencingTokens). */
    private final Map<TopicPartition, Long> tokens = new ConcurrentHashMap<>();

    private Opener opener;

    @Override
    public Integer call() throws Exception {
        try (JdbcSink sink = new JdbcSink(jdbcUrl, jdbcUser, jdbcPassword, member.group);
                GroupKeeper keeper = member.startKeeper()) {
            sink.createTables();
            opener = new Opener(sink);
            CoordinatedConsumer<String, String> consumer = CoordinatedConsumer.<String, String>builder(keeper)
                    .group(member.group)
                    .topics(topic)
                    .kafkaProperties(member.kafkaProperties)
                    .kafkaProperty("bootstrap.servers", member.bootstrap)
                    .deserializers(new StringDeserializer(), new StringDeserializer())
                    .startPosition(StartPosition.parse(start))
                    .listener(opener)
                    .build();
            opener.consumer = consumer;
            consumer.start();
            GracefulLeave leave = GracefulLeave.onShutdown(consumer, "jdbc-sink-shutdown");
            System.err.println("member " + consumer.memberId() + " of group " + member.group + " storing " + topic
                    + " into " + jdbcUrl + " (SIGTERM to leave gracefully)");
            try {
                while (true) {
                    store(consumer, sink, consumer.poll(Duration.ofMillis(500)));
                }
            } catch (WakeupException e) {
                // SIGTERM: leave below
            } finally {
                consumer.close();
                System.err.println("member " + consumer.memberId() + " left group " + member.group);
                leave.left();
            }
        }
        return 0;
    }

    private void store(
            CoordinatedConsumer<String, String> consumer, JdbcSink sink, ConsumerRecords<String, String> records) {
        for (TopicPartition tp : records.partitions()) {
            List<ConsumerRecord<String, String>> batch = records.records(tp);
            Long token = tokens.get(tp);
            if (token == null) {
                // Not opened: the database failed at the assignment, or refused this member. Open it now and fetch
                // again from the stored position; never store (or skip) records of a partition not opened.
                opener.open(tp, batch.get(0).offset());
                continue;
            }
            work(batch.size());
            try {
                FencedJdbcSink.Written w = sink.write(tp, token, batch);
                System.out.println("{\"member\":\"" + consumer.memberId() + "\",\"topic\":\"" + tp.topic()
                        + "\",\"partition\":" + tp.partition() + ",\"token\":" + token + ",\"stored\":" + w.stored()
                        + ",\"skipped\":" + w.skipped() + ",\"next\":" + w.nextOffset() + "}");
            } catch (StaleTokenException e) {
                tokens.remove(tp); // a former owner: drop the rest; the next poll reports the partition lost
                System.out.println("{\"member\":\"" + consumer.memberId() + "\",\"topic\":\"" + tp.topic()
                        + "\",\"partition\":" + tp.partition() + ",\"refused\":true,\"token\":" + token
                        + ",\"current\":" + e.currentToken() + "}");
                System.err.println("member " + consumer.memberId() + ": " + e.getMessage());
            } catch (SQLException e) {
                // Nothing of the batch landed, but the consumer's position moved past it: back to what is stored.
                System.err.println("member " + consumer.memberId() + ": storing " + tp + " failed (" + e.getMessage()
                        + "); seeking back to the database's position");
                seekBack(consumer, sink, tp, batch.get(0).offset());
            }
        }
        System.out.flush();
    }

    private void seekBack(CoordinatedConsumer<String, String> consumer, JdbcSink sink, TopicPartition tp, long first) {
        try {
            consumer.seek(tp, sink.nextOffset(tp).orElse(first));
        } catch (SQLException e) {
            consumer.seek(tp, first); // the stored position is at or past it: anything stored again is skipped
        }
    }

    /** Simulated processing: the batch is "worked on" before it is stored. */
    private void work(int records) {
        long until = System.nanoTime() + records * workMicrosPerRecord * 1_000L;
        while (System.nanoTime() < until) {
            LockSupport.parkNanos(until - System.nanoTime());
        }
    }

    /** Opens every assigned partition in the database and seeks to its stored position (the polling thread). */
    private final class Opener implements ConsumerRebalanceListener {
        private final JdbcSink sink;
        private volatile CoordinatedConsumer<String, String> consumer;

        Opener(JdbcSink sink) {
            this.sink = sink;
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            partitions.forEach(tp -> open(tp, -1));
        }

        /**
         * Fences former owners in the database and seeks to the stored position ({@code fallback} when nothing is
         * stored yet, -1 to keep the consumer's own start position). A failure leaves the partition unopened: its
         * records are not stored until an open succeeds.
         */
        void open(TopicPartition tp, long fallback) {
            OptionalLong token = consumer.fencingToken(tp);
            if (token.isEmpty()) {
                return; // lost again already
            }
            try {
                OptionalLong next = sink.open(tp, token.getAsLong());
                if (next.isPresent()) {
                    consumer.seek(tp, next.getAsLong());
                } else if (fallback >= 0) {
                    consumer.seek(tp, fallback);
                }
                tokens.put(tp, token.getAsLong());
            } catch (StaleTokenException e) {
                System.err.println("member " + consumer.memberId() + ": " + e.getMessage());
            } catch (SQLException e) {
                System.err.println("member " + consumer.memberId() + ": opening " + tp + " in the database failed ("
                        + e.getMessage() + "); trying again at its next records");
                if (fallback >= 0) {
                    consumer.seek(tp, fallback); // the records just fetched come again
                }
            }
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            partitions.forEach(tokens::remove);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            partitions.forEach(tokens::remove);
        }
    }
}
