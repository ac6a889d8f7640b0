package io.groupkeeper.cli.monitor;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.cli.kafka.CachedLogBounds;
import io.groupkeeper.cli.kafka.KafkaLogBounds;
import io.groupkeeper.fixtures.Keepers;
import io.groupkeeper.fixtures.TestNames;
import io.groupkeeper.zkprotocol.admin.GroupAdmin;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import io.groupkeeper.zookeeper.admin.ZooKeeperAdmin;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;

/**
 * Starts real monitors (HTTP on a free port) over the shared ZooKeeper and Kafka of the cli tests, each on a
 * namespace of its own, and reads what they serve the way Prometheus and a browser would.
 */
abstract class MonitorTestSupport {

    static final Duration INTERVAL = Duration.ofMillis(200);
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        toClose.clear();
    }

    static String unique(String prefix) {
        return TestNames.unique(prefix);
    }

    /** A store on {@code namespace} (started, closed after the test). */
    ZooKeeperStore store(String zk, String namespace) {
        return store(zk, namespace, Duration.ofSeconds(10));
    }

    /** As above; reads give up after {@code timeout} while ZooKeeper is unreachable. */
    ZooKeeperStore store(String zk, String namespace, Duration timeout) {
        ZooKeeperStore s = ZooKeeperStore.builder()
                .connectString(zk)
                .namespace(namespace)
                .connectionTimeout(timeout)
                .build();
        s.start();
        toClose.add(s);
        return s;
    }

    /** A started member of {@code group} on {@code namespace}, registered with the topic's partition count. */
    GroupMember member(String zk, String namespace, String group, String topic, int partitions, String host) {
        store(zk, namespace).topics().ensureTopic(topic, partitions);
        GroupKeeper keeper = Keepers.started(
                ZooKeeperStore.builder().connectString(zk).namespace(namespace).build(), toClose);
        GroupMember m = keeper.member(group).topics(topic).host(host).build();
        m.start();
        return m;
    }

    /** A started monitor on {@code namespace}; with {@code bootstrap} (may be null) log ends come from that Kafka. */
    Monitor monitor(String zk, String namespace, String bootstrap, Duration kafkaTimeout) throws IOException {
        return monitor(zk, namespace, bootstrap, kafkaTimeout, Duration.ofSeconds(10));
    }

    Monitor monitor(String zk, String namespace, String bootstrap, Duration kafkaTimeout, Duration zkTimeout)
            throws IOException {
        return monitor(zk, namespace, bootstrap, kafkaTimeout, zkTimeout, Clock.systemUTC());
    }

    Monitor monitor(
            String zk, String namespace, String bootstrap, Duration kafkaTimeout, Duration zkTimeout, Clock clock)
            throws IOException {
        ZooKeeperStore s = store(zk, namespace, zkTimeout);
        Optional<CachedLogBounds> kafka = bootstrap == null
                ? Optional.empty()
                : Optional.of(new CachedLogBounds(
                        new KafkaLogBounds(bootstrap, new Properties(), kafkaTimeout), INTERVAL, kafkaTimeout));
        kafka.ifPresent(k -> toClose.add(k));
        GroupAdmin admin =
                ZooKeeperAdmin.builder().store(s).logBounds(kafka.orElse(null)).build();
        Monitor m = new Monitor(
                new Monitor.Settings(
                        "127.0.0.1", 0, INTERVAL, Duration.ofMinutes(5), Optional.empty(), Duration.ofHours(1)),
                admin,
                ZooKeeperAdmin.on(s),
                kafka,
                clock,
                admin.root());
        toClose.add(m);
        return m.start();
    }

    record Response(int status, String contentType, String body) {}

    static Response get(Monitor m, String path) throws Exception {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.port() + path))
                        .timeout(Duration.ofSeconds(10))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return new Response(
                r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), r.body());
    }

    static String metrics(Monitor m) throws Exception {
        return get(m, "/metrics").body();
    }

    /** The value of the series {@code name} whose labels include all of {@code labels}; empty if none. */
    static OptionalDouble value(String exposition, String name, String... labels) {
        Map<String, String> want = new HashMap<>();
        for (int i = 0; i + 1 < labels.length; i += 2) {
            want.put(labels[i], labels[i + 1]);
        }
        for (String line : exposition.split("\n")) {
            if (line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.lastIndexOf(' ');
            if (space < 0) {
                continue;
            }
            String series = brace < 0 ? line.substring(0, space) : line.substring(0, brace);
            if (!series.equals(name)) {
                continue;
            }
            Map<String, String> have = new HashMap<>();
            if (brace >= 0) {
                Matcher lm = LABEL.matcher(line.substring(brace, line.lastIndexOf('}') + 1));
                while (lm.find()) {
                    have.put(lm.group(1), lm.group(2));
                }
            }
            if (have.entrySet().containsAll(want.entrySet())) {
                return OptionalDouble.of(Double.parseDouble(line.substring(space + 1)));
            }
        }
        return OptionalDouble.empty();
    }
}
