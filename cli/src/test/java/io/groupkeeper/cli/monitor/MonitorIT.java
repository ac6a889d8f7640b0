package io.groupkeeper.cli.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.cli.SharedServers;
import io.groupkeeper.embedded.EmbeddedKafka;
import io.groupkeeper.fixtures.ManualClock;
import io.groupkeeper.zkprotocol.admin.GroupAdmin;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import io.groupkeeper.zookeeper.admin.ZooKeeperAdmin;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code groupkeeper monitor} on real servers: the shared ZooKeeper and Kafka of the cli tests, and for the Kafka
 * outage a broker of its own that the test stops. Each test watches a namespace of its own.
 */
@ExtendWith(SharedServers.class)
class MonitorIT extends MonitorTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static String topic;

    @BeforeAll
    static void data() {
        topic = unique("mon");
        SharedServers.kafka().createTopic(topic, 2);
        produce(SharedServers.bootstrap(), topic, 2, 10);
    }

    static void produce(String bootstrap, String topic, int partitions, int perPartition) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int part = 0; part < partitions; part++) {
                for (int i = 0; i < perPartition; i++) {
                    producer.send(new ProducerRecord<>(topic, part, null, "r" + i));
                }
            }
            producer.flush();
        }
    }

    private static String zk() {
        return SharedServers.zk();
    }

    private GroupMember runningMember(String ns, String group, String host) {
        GroupMember m = member(zk(), ns, group, topic, 2, host);
        await().atMost(WAIT).until(() -> m.assignment().size() == 2);
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        for (long o = 2; o <= 4; o++) {
            assertThat(m.commit(Map.of(p0, o, p1, o + 6), Map.of(p0, 10L, p1, 10L))
                            .allCommitted())
                    .isTrue();
        }
        return m;
    }

    @Test
    void metricsShowLagStatusOwnerGenerationMembersRebalancesAndCommits() throws Exception {
        String ns = unique("ns");
        String group = unique("billing");
        GroupMember m = runningMember(ns, group, "app-1");
        Monitor monitor = monitor(zk(), ns, SharedServers.bootstrap(), Duration.ofSeconds(10));

        String text = metrics(monitor);
        assertThat(value(text, "groupkeeper_monitor_up")).hasValue(1.0);
        assertThat(value(text, "groupkeeper_monitor_groups")).hasValue(1.0);
        assertThat(value(text, "groupkeeper_lag_records", "group", group, "topic", topic, "partition", "0"))
                .hasValue(6.0);
        assertThat(value(text, "groupkeeper_lag_records", "group", group, "topic", topic, "partition", "1"))
                .hasValue(0.0);
        assertThat(value(text, "groupkeeper_lag_seconds", "group", group, "topic", topic, "partition", "1"))
                .hasValue(0.0);
        assertThat(value(text, "groupkeeper_lag_seconds", "group", group, "topic", topic, "partition", "0")
                        .getAsDouble())
                .isGreaterThanOrEqualTo(0.0);
        assertThat(value(text, "groupkeeper_partition_status", "group", group, "partition", "0", "status", "OK"))
                .hasValue(1.0);
        assertThat(value(text, "groupkeeper_partition_status", "group", group, "partition", "0", "status", "STOP"))
                .hasValue(0.0);
        assertThat(value(text, "groupkeeper_partition_status", "group", group, "partition", "0", "status", "CORRUPT"))
                .hasValue(0.0);
        assertThat(value(text, "groupkeeper_partition_owned", "group", group, "partition", "0", "member", m.memberId()))
                .hasValue(1.0);
        assertThat(value(text, "groupkeeper_group_generation", "group", group)).hasValue((double) m.generation());
        assertThat(value(text, "groupkeeper_group_members", "group", group)).hasValue(1.0);
        assertThat(value(text, "groupkeeper_group_status", "group", group, "status", "OK"))
                .hasValue(1.0);
        assertThat(value(text, "groupkeeper_group_rebalances_total", "group", group))
                .hasValue(0.0);
        assertThat(text).contains("# TYPE groupkeeper_group_commits_total counter");

        // Commits between samples: counted, and a rate.
        TopicPartition p0 = new TopicPartition(topic, 0);
        for (long o = 5; o <= 9; o++) {
            assertThat(m.commit(Map.of(p0, o), Map.of(p0, 10L)).allCommitted()).isTrue();
        }
        await().atMost(WAIT)
                .untilAsserted(
                        () -> assertThat(value(metrics(monitor), "groupkeeper_group_commits_total", "group", group)
                                        .getAsDouble())
                                .isGreaterThanOrEqualTo(5.0));
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(
                                value(metrics(monitor), "groupkeeper_lag_records", "group", group, "partition", "0"))
                        .hasValue(1.0));

        // A second member: the generation moves, a rebalance is counted, and two members are live.
        long before = m.generation();
        GroupMember second = member(zk(), ns, group, topic, 2, "app-2");
        await().atMost(WAIT)
                .until(() -> second.assignment().size() == 1 && m.assignment().size() == 1);
        await().atMost(WAIT).untilAsserted(() -> {
            String t = metrics(monitor);
            assertThat(value(t, "groupkeeper_group_members", "group", group)).hasValue(2.0);
            assertThat(value(t, "groupkeeper_group_generation", "group", group).getAsDouble())
                    .isGreaterThan(before);
            assertThat(value(t, "groupkeeper_group_rebalances_total", "group", group)
                            .getAsDouble())
                    .isGreaterThanOrEqualTo(1.0);
            TopicPartition moved = second.assignment().iterator().next();
            assertThat(value(
                            t,
                            "groupkeeper_partition_owned",
                            "group",
                            group,
                            "partition",
                            String.valueOf(moved.partition()),
                            "member",
                            second.memberId()))
                    .hasValue(1.0);
            assertThat(value(
                            t,
                            "groupkeeper_partition_owned",
                            "group",
                            group,
                            "partition",
                            String.valueOf(moved.partition()),
                            "member",
                            m.memberId()))
                    .isEmpty(); // the old owner's series is gone
        });

        Response health = get(monitor, "/health");
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.contentType()).startsWith("application/json");
        JsonNode h = new ObjectMapper().readTree(health.body());
        assertThat(h.get("status").asText()).isEqualTo("UP");
        assertThat(h.get("kafka").asBoolean()).isTrue();
        assertThat(get(monitor, "/metrics").contentType()).startsWith("text/plain");

        // The Grafana dashboard in docs/ asks only for series this exporter serves.
        String dashboard =
                java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "grafana-dashboard.json"));
        JsonNode panels = new ObjectMapper().readTree(dashboard).get("panels");
        java.util.Set<String> used = new java.util.TreeSet<>();
        java.util.regex.Matcher names =
                java.util.regex.Pattern.compile("groupkeeper_[a-z_]+").matcher(dashboard);
        while (names.find()) {
            used.add(names.group());
        }
        assertThat(panels).hasSizeGreaterThanOrEqualTo(8);
        assertThat(used)
                .contains(
                        "groupkeeper_lag_records",
                        "groupkeeper_lag_seconds",
                        "groupkeeper_partition_status",
                        "groupkeeper_group_rebalances_total",
                        "groupkeeper_group_commits_total");
        String served = metrics(monitor);
        assertThat(used).allSatisfy(name -> assertThat(served).containsPattern("(?m)^" + name + "[{ ]"));
    }

    @Test
    void anUnknownNamespaceServesAnEmptyPageAndNoGroupSeries() throws Exception {
        Monitor monitor = monitor(zk(), unique("nothing-here"), SharedServers.bootstrap(), Duration.ofSeconds(10));
        Response page = get(monitor, "/");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body()).contains("No groups under this namespace.").doesNotContain("<tr class=\"group\"");
        String text = metrics(monitor);
        assertThat(value(text, "groupkeeper_monitor_up")).hasValue(1.0);
        assertThat(value(text, "groupkeeper_monitor_groups")).hasValue(0.0);
        assertThat(text).doesNotContain("group=\"");
        assertThat(get(monitor, "/group/nobody").status()).isEqualTo(404);
        assertThat(get(monitor, "/group/nobody").body()).contains("No such group");
        assertThat(get(monitor, "/health").status()).isEqualTo(200);
        assertThat(get(monitor, "/nope").status()).isEqualTo(404);
    }

    @Test
    void aSamplerThatStallsIsDownAndOneThatMeetsAnErrorSamplesOn() throws Exception {
        AtomicBoolean errorOnce = new AtomicBoolean();
        ManualClock clock = new ManualClock(Instant.now()) {
            @Override
            public Instant instant() {
                boolean sampler = Thread.currentThread().getName().equals("groupkeeper-monitor-sampler");
                if (sampler && errorOnce.compareAndSet(true, false)) {
                    throw new AssertionError("an Error in the middle of a sample");
                }
                return super.instant();
            }
        };
        Monitor monitor = monitor(zk(), unique("stall"), null, Duration.ofSeconds(10), Duration.ofSeconds(10), clock);
        assertThat(get(monitor, "/health").status()).isEqualTo(200);

        long before = monitor.state().samples();
        errorOnce.set(true);
        await().atMost(WAIT).until(() -> !errorOnce.get() && monitor.state().samples() > before + 1);

        synchronized (monitor) { // the sampler waits for this lock: it stalls, as on a hung call
            clock.advance(Duration.ofHours(1));
            Response health = get(monitor, "/health");
            assertThat(health.status()).isEqualTo(503);
            assertThat(new ObjectMapper().readTree(health.body()).get("stale").asBoolean())
                    .isTrue();
            assertThat(value(metrics(monitor), "groupkeeper_monitor_up")).hasValue(0.0);
        }
        await().atMost(WAIT).until(() -> get(monitor, "/health").status() == 200);
        assertThat(value(metrics(monitor), "groupkeeper_monitor_up")).hasValue(1.0);
    }

    @Test
    void aCorruptOffsetNodeIsACorruptPartitionNotAnException() throws Exception {
        String ns = unique("ns");
        String group = unique("typo");
        runningMember(ns, group, "app-1").close();
        ZooKeeperStore raw = store(zk(), ns);
        raw.curator()
                .setData()
                .forPath(
                        "/groups/" + group + "/offsets/" + topic + "/1",
                        "{\"offset\": 4x".getBytes(StandardCharsets.UTF_8)); // a typo in zkCli
        Monitor monitor = monitor(zk(), ns, SharedServers.bootstrap(), Duration.ofSeconds(10));

        String text = metrics(monitor);
        assertThat(value(text, "groupkeeper_monitor_up")).hasValue(1.0);
        assertThat(value(text, "groupkeeper_partition_status", "group", group, "partition", "1", "status", "CORRUPT"))
                .hasValue(1.0);
        assertThat(value(text, "groupkeeper_partition_status", "group", group, "partition", "0", "status", "CORRUPT"))
                .hasValue(0.0);
        assertThat(value(text, "groupkeeper_group_status", "group", group, "status", "CORRUPT"))
                .hasValue(1.0);
        Response page = get(monitor, "/group/" + group);
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body()).contains("CORRUPT", "offset node unreadable", "id=\"problems\"");
    }

    @Test
    void aGroupDeletedWhileTheMonitorRunsDisappears() throws Exception {
        String ns = unique("ns");
        String kept = unique("kept");
        String gone = unique("gone");
        runningMember(ns, kept, "app-1");
        runningMember(ns, gone, "app-2").close();
        Monitor monitor = monitor(zk(), ns, SharedServers.bootstrap(), Duration.ofSeconds(10));
        assertThat(value(metrics(monitor), "groupkeeper_group_members", "group", gone))
                .hasValue(0.0);
        assertThat(get(monitor, "/").body()).contains("data-group=\"" + gone + "\"");

        try (GroupAdmin admin =
                ZooKeeperAdmin.builder().connectString(zk()).namespace(ns).build()) {
            admin.deleteGroup(gone, false);
        }
        await().atMost(WAIT).untilAsserted(() -> {
            String t = metrics(monitor);
            assertThat(t).doesNotContain("group=\"" + gone + "\"");
            assertThat(value(t, "groupkeeper_group_members", "group", kept)).hasValue(1.0);
            assertThat(value(t, "groupkeeper_monitor_groups")).hasValue(1.0);
            // A sample publishes its metrics a moment before its pages: both are polled.
            assertThat(get(monitor, "/").body()).doesNotContain(gone).contains("data-group=\"" + kept + "\"");
            assertThat(get(monitor, "/group/" + gone).status()).isEqualTo(404);
        });
    }

    @Test
    void withKafkaUnreachableTheLastValuesStayAndUpIsZero() throws Exception {
        EmbeddedKafka own = EmbeddedKafka.builder().build().start();
        try {
            String t = unique("outage");
            own.createTopic(t, 1);
            produce(own.bootstrapServers(), t, 1, 7);
            String ns = unique("ns");
            String group = unique("g");
            GroupMember m = member(zk(), ns, group, t, 1, "app-1");
            await().atMost(WAIT).until(() -> m.assignment().size() == 1);
            assertThat(m.commit(Map.of(new TopicPartition(t, 0), 3L), Map.of(new TopicPartition(t, 0), 7L))
                            .allCommitted())
                    .isTrue();
            Monitor monitor = monitor(zk(), ns, own.bootstrapServers(), Duration.ofSeconds(1));
            assertThat(value(metrics(monitor), "groupkeeper_lag_records", "group", group))
                    .hasValue(4.0);
            assertThat(value(metrics(monitor), "groupkeeper_monitor_up")).hasValue(1.0);

            own.close();
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(value(metrics(monitor), "groupkeeper_monitor_up"))
                            .hasValue(0.0));
            long samples = monitor.state().samples();
            await().atMost(WAIT).until(() -> monitor.state().samples() > samples + 1); // sampling goes on
            String text = metrics(monitor);
            assertThat(value(text, "groupkeeper_monitor_up")).hasValue(0.0);
            assertThat(value(text, "groupkeeper_lag_records", "group", group)).hasValue(4.0); // last value
            assertThat(value(text, "groupkeeper_group_members", "group", group)).hasValue(1.0);
            Response health = get(monitor, "/health");
            assertThat(health.status()).isEqualTo(200); // ZooKeeper is reachable
            JsonNode h = new ObjectMapper().readTree(health.body());
            assertThat(h.get("kafka").asBoolean()).isFalse();
            assertThat(h.get("up").asBoolean()).isFalse();
            assertThat(get(monitor, "/").body()).contains("Kafka unreachable", "data-group=\"" + group + "\"");
        } finally {
            own.close();
        }
    }

    @Test
    void withZooKeeperUnreachableHealthIs503AndTheLastValuesStay() throws Exception {
        org.apache.curator.test.TestingServer ownZk = new org.apache.curator.test.TestingServer(true);
        try {
            String ns = unique("ns");
            String group = unique("zkdown");
            store(ownZk.getConnectString(), ns).topics().ensureTopic(topic, 2);
            try (io.groupkeeper.GroupKeeper keeper = io.groupkeeper.GroupKeeper.builder()
                    .store(ZooKeeperStore.builder()
                            .connectString(ownZk.getConnectString())
                            .namespace(ns)
                            .build())
                    .build()
                    .start()) {
                GroupMember m = keeper.member(group).topics(topic).build(); // closed before the server stops
                m.start();
                await().atMost(WAIT).until(() -> m.assignment().size() == 2);
                assertThat(m.commit(Map.of(new TopicPartition(topic, 0), 4L), Map.of())
                                .allCommitted())
                        .isTrue();
            }
            Monitor monitor = monitor(
                    ownZk.getConnectString(),
                    ns,
                    SharedServers.bootstrap(),
                    Duration.ofSeconds(10),
                    Duration.ofSeconds(1));
            assertThat(value(metrics(monitor), "groupkeeper_lag_records", "group", group, "partition", "0"))
                    .hasValue(6.0);
            assertThat(get(monitor, "/health").status()).isEqualTo(200);

            ownZk.stop();
            await().atMost(WAIT)
                    .untilAsserted(
                            () -> assertThat(get(monitor, "/health").status()).isEqualTo(503));
            String text = metrics(monitor);
            assertThat(value(text, "groupkeeper_monitor_up")).hasValue(0.0);
            assertThat(value(text, "groupkeeper_lag_records", "group", group, "partition", "0"))
                    .hasValue(6.0);
            JsonNode h = new ObjectMapper().readTree(get(monitor, "/health").body());
            assertThat(h.get("status").asText()).isEqualTo("DOWN");
            assertThat(h.get("zookeeper").asBoolean()).isFalse();
            assertThat(get(monitor, "/").body()).contains("ZooKeeper unreachable", "data-group=\"" + group + "\"");
        } finally {
            ownZk.close();
        }
    }

    @Test
    void everythingRenderedIsEscaped() throws Exception {
        String ns = unique("ns");
        String group = unique("esc");
        runningMember(ns, group, "<script>alert('x')</script>&\"");
        Monitor monitor = monitor(zk(), ns, SharedServers.bootstrap(), Duration.ofSeconds(10));
        String page = get(monitor, "/group/" + group).body();
        assertThat(page)
                .contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;")
                .doesNotContain("<script>");
        assertThat(get(monitor, "/group/%3Cb%3E").body()).contains("&lt;b&gt;").doesNotContain("<b>");
    }

    @Test
    void onlyGetAndHead() throws Exception {
        Monitor monitor = monitor(zk(), unique("ns"), null, Duration.ofSeconds(1));
        java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient()
                .send(
                        java.net.http.HttpRequest.newBuilder(
                                        java.net.URI.create("http://127.0.0.1:" + monitor.port() + "/metrics"))
                                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("x"))
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(405);
        OptionalDouble up = value(metrics(monitor), "groupkeeper_monitor_up");
        assertThat(up).hasValue(1.0); // without --bootstrap, up means ZooKeeper reachable
    }
}
