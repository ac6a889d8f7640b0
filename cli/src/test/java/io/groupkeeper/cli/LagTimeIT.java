package io.groupkeeper.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.cli.kafka.CachedLogBounds;
import io.groupkeeper.cli.kafka.KafkaLogBounds;
import io.groupkeeper.status.LagStatus;
import io.groupkeeper.zkprotocol.admin.AdminException;
import io.groupkeeper.zkprotocol.admin.GroupAdmin;
import io.groupkeeper.zkprotocol.admin.GroupDescription;
import io.groupkeeper.zkprotocol.admin.GroupStatus;
import io.groupkeeper.zkprotocol.admin.LogBounds;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import io.groupkeeper.zookeeper.admin.ZooKeeperAdmin;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Lag in seconds on the shared real ZooKeeper and Kafka, with a fixed clock where exact values are asserted:
 * a lagging partition (now minus the next record's timestamp), an idle caught-up partition whose last record is a day
 * old (0), and a transactional partition whose log end lies one past the commit marker (caught up: 0, not STOP).
 */
class LagTimeIT extends CliTestSupport {

    /** Record timestamps of partition 0: T0 + i seconds. */
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

    private static String topic;
    private static String group;

    @BeforeAll
    static void data() throws Exception {
        topic = unique("lagtime");
        topic(topic, 3);
        produce(topic, 0, 10, i -> T0.plusSeconds(i).toEpochMilli()); // lagging: committed 4
        produce(topic, 1, 5, i -> T0.minus(Duration.ofDays(1)).toEpochMilli()); // idle: committed 5 = end
        transactional(topic, 2, 3); // offsets 0..2, marker 3
        group = unique("lt");
        seed(
                group,
                Map.of(
                        new TopicPartition(topic, 0),
                        4L,
                        new TopicPartition(topic, 1),
                        5L,
                        new TopicPartition(topic, 2),
                        3L));
    }

    /** {@code count} records in one committed transaction: data at 0..count-1, the commit marker at count. */
    /**
     * {@code count} records in one committed transaction at the partition's log end, returning once the commit marker
     * is in the log too: {@code commitTransaction()} returns when the coordinator has the commit, and the marker reaches
     * the partition's log after it.
     */
    private static void transactional(String topic, int partition, int count) {
        TopicPartition tp = new TopicPartition(topic, partition);
        long before;
        try (KafkaLogBounds bounds = new KafkaLogBounds(bootstrap(), new Properties(), Duration.ofSeconds(10))) {
            before = bounds.latest(List.of(tp)).get(tp);
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, unique("tx"));
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, partition, T0.toEpochMilli(), null, "tx-" + i));
            }
            producer.commitTransaction();
        }
        try (KafkaLogBounds bounds = new KafkaLogBounds(bootstrap(), new Properties(), Duration.ofSeconds(10))) {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> bounds.latest(List.of(tp)).get(tp) == before + count + 1);
        }
    }

    private static GroupAdmin admin(LogBounds bounds, Clock clock) {
        return ZooKeeperAdmin.builder()
                .connectString(zk())
                .logBounds(bounds)
                .clock(clock)
                .build();
    }

    private static Map<Integer, GroupDescription.Partition> byPartition(GroupDescription d) {
        Map<Integer, GroupDescription.Partition> m = new HashMap<>();
        d.partitions().forEach(p -> m.put(p.partition().partition(), p));
        return m;
    }

    @Test
    void lagTimeIsNowMinusTheNextRecordsTimestampAndZeroWhenCaughtUpOrOnlyAMarkerFollows() {
        Clock clock = Clock.fixed(T0.plusSeconds(100), ZoneOffset.UTC);
        try (KafkaLogBounds kafka = new KafkaLogBounds(bootstrap(), new Properties(), Duration.ofSeconds(10));
                GroupAdmin admin = admin(kafka, clock)) {
            Map<Integer, GroupDescription.Partition> parts = byPartition(admin.describe(group));
            assertThat(parts.get(0).lagTime()).contains(Duration.ofSeconds(96)); // record 4 has T0 + 4 s
            assertThat(parts.get(0).lag()).hasValue(6);
            assertThat(parts.get(0).caughtUp()).isFalse();
            assertThat(parts.get(1).lagTime()).contains(Duration.ZERO); // idle: old records, nothing left
            assertThat(parts.get(1).caughtUp()).isTrue();
            assertThat(parts.get(2).logEnd()).hasValue(4); // one past the commit marker
            assertThat(parts.get(2).lag()).hasValue(1);
            assertThat(parts.get(2).lagTime()).contains(Duration.ZERO);
            assertThat(parts.get(2).caughtUp()).isTrue();

            // Status: no commit history at all, yet neither the idle nor the transactional partition is STOP.
            GroupStatus st = admin.status(group, Duration.ofMinutes(5), Optional.empty());
            assertThat(st.partitions())
                    .filteredOn(r -> r.partition().partition() > 0)
                    .allSatisfy(r -> assertThat(r.status().status()).isEqualTo(LagStatus.OK));
            assertThat(st.partitions().get(0).status().status()).isEqualTo(LagStatus.STOP);
        }
    }

    @Test
    void aCommittingGroupWhoseLagTimeExceedsTheMaximumIsWarn() {
        Clock clock = Clock.fixed(T0.plusSeconds(100), ZoneOffset.UTC);
        String live = unique("ltlive");
        TopicPartition tp0 = new TopicPartition(topic, 0);
        TopicPartition tp1 = new TopicPartition(topic, 1);
        TopicPartition tp2 = new TopicPartition(topic, 2);
        try (GroupKeeper gk = GroupKeeper.builder()
                        .store(ZooKeeperStore.builder().connectString(zk()).build())
                        .build()
                        .start();
                KafkaLogBounds kafka = new KafkaLogBounds(bootstrap(), new Properties(), Duration.ofSeconds(10));
                GroupAdmin admin = admin(kafka, clock)) {
            GroupMember m = gk.member(live).topics(topic).build();
            m.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> m.assignment().size() == 3);
            for (long o = 2; o <= 4; o++) { // committing, lag shrinking: OK by Burrow's rules
                assertThat(m.commit(Map.of(tp0, o), Map.of(tp0, 10L)).allCommitted())
                        .isTrue();
            }
            assertThat(m.commit(Map.of(tp1, 5L, tp2, 3L), Map.of(tp1, 5L, tp2, 4L))
                            .allCommitted())
                    .isTrue();

            GroupStatus plain = admin.status(live, Duration.ofDays(3650), Optional.empty());
            assertThat(plain.status()).isEqualTo(LagStatus.OK);

            // 96 s of lag against a 90 s maximum; the idle and the transactional partitions have none.
            GroupStatus timed = admin.status(live, Duration.ofDays(3650), Optional.of(Duration.ofSeconds(90)));
            assertThat(timed.status()).isEqualTo(LagStatus.WARN);
            assertThat(timed.partitions().get(0).status().status()).isEqualTo(LagStatus.WARN);
            assertThat(timed.partitions().get(0).status().reason())
                    .isEqualTo("lag time 1m36s exceeds the maximum 1m30s");
            assertThat(timed.partitions())
                    .filteredOn(r -> r.partition().partition() > 0)
                    .allSatisfy(r -> assertThat(r.status().status()).isEqualTo(LagStatus.OK));
            assertThat(admin.status(live, Duration.ofDays(3650), Optional.of(Duration.ofSeconds(96)))
                            .status())
                    .isEqualTo(LagStatus.OK); // at the maximum, not above it
        }
    }

    @Test
    void theCachedBoundsGiveTheSameAnswersAndAskKafkaOncePerRefresh() {
        AtomicLong nanos = new AtomicLong();
        Clock clock = Clock.fixed(T0.plusSeconds(100), ZoneOffset.UTC);
        try (CachedLogBounds cached = new CachedLogBounds(
                        new KafkaLogBounds(bootstrap(), new Properties(), Duration.ofSeconds(10)),
                        Duration.ofSeconds(30),
                        Duration.ofSeconds(10),
                        nanos::get);
                GroupAdmin admin = admin(cached, clock)) {
            Map<Integer, GroupDescription.Partition> parts = byPartition(admin.describe(group));
            assertThat(parts.get(0).lagTime()).contains(Duration.ofSeconds(96));
            assertThat(parts.get(1).lagTime()).contains(Duration.ZERO);
            assertThat(parts.get(2).lagTime()).contains(Duration.ZERO);
            long ends = cached.logEndRequests();
            long lookups = cached.timestampRequests();
            for (int i = 0; i < 5; i++) { // a monitor's scrapes within the refresh interval: no Kafka round trip
                assertThat(byPartition(admin.describe(group)).get(0).lagTime()).contains(Duration.ofSeconds(96));
            }
            assertThat(cached.logEndRequests()).isEqualTo(ends);
            assertThat(cached.timestampRequests()).isEqualTo(lookups);
        }
    }

    @Test
    void cachedLogEndsRefreshInOneBatchAfterTheIntervalAndAStaleNothingFollowsIsLookedUpAgain() {
        String t = unique("lagcache");
        topic(t, 20);
        List<TopicPartition> all = new java.util.ArrayList<>();
        for (int p = 0; p < 20; p++) {
            all.add(new TopicPartition(t, p));
        }
        transactional(t, 0, 2); // data 0..1, marker 2, log end 3
        AtomicLong nanos = new AtomicLong();
        Duration refresh = Duration.ofSeconds(30);
        try (CachedLogBounds cached = new CachedLogBounds(
                new KafkaLogBounds(bootstrap(), new Properties(), Duration.ofSeconds(10)),
                refresh,
                Duration.ofSeconds(10),
                nanos::get)) {
            assertThat(cached.latest(all)).hasSize(20).containsEntry(new TopicPartition(t, 0), 3L);
            assertThat(cached.logEndRequests()).isEqualTo(1);
            TopicPartition p0 = new TopicPartition(t, 0);
            assertThat(cached.recordTimestamps(Map.of(p0, 2L))).containsEntry(p0, Optional.empty()); // only a marker

            produce(t, 0, 1, i -> T0.plusSeconds(60).toEpochMilli()); // a data record at 3: log end 4
            assertThat(cached.latest(all)).containsEntry(p0, 3L); // within the interval: cached
            assertThat(cached.logEndRequests()).isEqualTo(1);

            nanos.addAndGet(refresh.toNanos() + 1);
            assertThat(cached.latest(all)).containsEntry(p0, 3L); // served at once, refreshed behind
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> cached.latest(List.of(p0)).get(p0) == 4L);
            assertThat(cached.logEndRequests()).isEqualTo(2); // 20 refreshes, one listOffsets

            // "Nothing after offset 2" was true up to log end 3; now record 3 follows it.
            assertThat(cached.recordTimestamps(Map.of(p0, 2L))).containsEntry(p0, Optional.of(T0.plusSeconds(60)));
        }
    }

    @Test
    void inAMonitorsSampleEveryLogEndIsReadFreshOnceNotFromThePreviousSample() {
        String t = unique("lagsample");
        topic(t, 4);
        List<TopicPartition> all = new java.util.ArrayList<>();
        for (int p = 0; p < 4; p++) {
            all.add(new TopicPartition(t, p));
        }
        TopicPartition p0 = new TopicPartition(t, 0);
        produce(t, 0, 5, i -> T0.toEpochMilli());
        AtomicLong nanos = new AtomicLong();
        Duration interval = Duration.ofSeconds(10);
        try (CachedLogBounds cached = new CachedLogBounds(
                new KafkaLogBounds(bootstrap(), new Properties(), Duration.ofSeconds(10)),
                interval,
                Duration.ofSeconds(10),
                nanos::get)) {
            cached.beginSample();
            assertThat(cached.latest(all)).containsEntry(p0, 5L);
            long requests = cached.logEndRequests();
            assertThat(cached.latest(List.of(p0)))
                    .as("the same sample: from the cache")
                    .containsEntry(p0, 5L);
            assertThat(cached.logEndRequests()).isEqualTo(requests);

            produce(t, 0, 3, i -> T0.toEpochMilli()); // log end 8
            nanos.addAndGet(interval.toNanos() + 1);
            cached.beginSample();
            // Served at once from the cache, this read would say 5: lag computed against the last sample's ends.
            assertThat(cached.latest(all)).containsEntry(p0, 8L);
            assertThat(cached.logEndRequests())
                    .as("one listOffsets for the sample")
                    .isEqualTo(requests + 1);
        }
    }

    @Test
    void theCachedBoundsReportAnUnreachableKafkaAsOneClearErrorAndCacheNothing() {
        try (CachedLogBounds cached = new CachedLogBounds(
                new KafkaLogBounds("127.0.0.1:1", new Properties(), Duration.ofSeconds(1)),
                Duration.ofSeconds(30),
                Duration.ofSeconds(1),
                () -> 0L)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            assertThatThrownBy(() -> cached.latest(List.of(tp)))
                    .isInstanceOf(AdminException.class)
                    .hasMessageContaining("Kafka at 127.0.0.1:1")
                    .hasMessageContaining("log-end offsets");
            assertThatThrownBy(() -> cached.latest(List.of(tp))).isInstanceOf(AdminException.class); // not cached
            assertThat(cached.logEndRequests()).isEqualTo(2);
        }
    }

    @Test
    void describeShowsLagTimeInTheTableAndInJsonAndMaxLagTimeWarns() throws Exception {
        String out = gkb("groups", "describe", "--group", group).ok();
        assertThat(out).contains("LAG-TIME");
        List<String> p0 = row(out, topic, 0);
        assertThat(p0.get(6)).matches("\\d+d\\d+h\\d+m\\d+s|\\d+h\\d+m\\d+s"); // days or hours since T0: real clock
        assertThat(row(out, topic, 1).get(6)).isEqualTo("0s");
        assertThat(row(out, topic, 2).get(6)).isEqualTo("0s");

        JsonNode json = new ObjectMapper()
                .readTree(gkb("groups", "describe", "--group", group, "--output", "json")
                        .ok());
        JsonNode parts = json.get("partitions");
        assertThat(parts.get(0).get("lagSeconds").asDouble()).isGreaterThan(3600);
        assertThat(parts.get(1).get("lagSeconds").asDouble()).isZero();
        assertThat(parts.get(2).get("lagSeconds").asDouble()).isZero();
        assertThat(parts.get(2).get("caughtUp").asBoolean()).isTrue();

        String status = gkb(
                        "groups",
                        "describe",
                        "--group",
                        group,
                        "--status",
                        "--status-window",
                        "P3650D",
                        "--max-lag-time",
                        "PT1H")
                .ok();
        assertThat(status).contains("max lag time 1h0m0s");
        assertThat(row(status, topic, 0)).contains("STOP"); // no commit history: STOP stays, the threshold adds to why
        assertThat(String.join(" ", row(status, topic, 0))).contains("exceeds the maximum 1h0m0s");
        assertThat(row(status, topic, 1)).contains("OK");
        assertThat(row(status, topic, 2)).contains("OK");
    }

    @Test
    void maxLagTimeNeedsStatusAndAPositiveDuration() {
        assertThat(gkb("groups", "describe", "--group", group, "--max-lag-time", "PT1M")
                        .failed(2))
                .contains("--max-lag-time needs --status");
        assertThat(gkb("groups", "describe", "--group", group, "--status", "--max-lag-time", "PT0S")
                        .failed(2))
                .contains("--max-lag-time must be positive");
    }
}
