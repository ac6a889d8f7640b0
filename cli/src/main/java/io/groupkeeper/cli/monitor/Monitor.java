package io.groupkeeper.cli.monitor;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.cli.kafka.CachedLogBounds;
import io.groupkeeper.zkprotocol.admin.AdminException;
import io.groupkeeper.zkprotocol.admin.GroupAdmin;
import io.groupkeeper.zkprotocol.admin.GroupDescription;
import io.groupkeeper.zkprotocol.admin.GroupSummary;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code groupkeeper monitor}: samples every group under a namespace every {@code interval} — description and status
 * from ZooKeeper, log ends and record timestamps from Kafka (cached, {@link CachedLogBounds}) — and serves the last
 * sample over HTTP ({@link MonitorServer}): Prometheus metrics, a health check and a status page with an hour of lag
 * per group.
 *
 * <p>Faults. ZooKeeper unreachable: the last samples stay, {@code groupkeeper_monitor_up} is 0 and {@code /health}
 * answers 503. Kafka unreachable: groups still under the namespace keep their last sample (new ones are described
 * from ZooKeeper alone), {@code up} is 0. A sampler that stalls (or died) leaves samples older than three intervals
 * and a minute: {@code up} is 0 and {@code /health} 503 until it samples again. A group deleted while running
 * disappears at the next sample; a corrupt offset node is a {@code CORRUPT} partition. Nothing a sample meets stops
 * the sampling.
 *
 * <p>One sampling thread; the HTTP threads only read the published {@link State}.
 */
public final class Monitor implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Monitor.class);

    /** How the monitor runs. */
    public record Settings(
            String bind,
            int port,
            Duration interval,
            Duration statusWindow,
            Optional<Duration> maxLagTime,
            Duration history) {
        public Settings {
            Objects.requireNonNull(bind, "bind");
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("--port must be 0..65535, was " + port);
            }
            positive("--interval", interval);
            positive("--status-window", statusWindow);
            maxLagTime.ifPresent(m -> positive("--max-lag-time", m));
            positive("--history", history);
        }

        private static void positive(String what, Duration d) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive, was " + d);
            }
        }
    }

    /** What the HTTP side serves: the last sample of every group and whether the last sampling reached the servers. */
    record State(
            Instant at,
            boolean zookeeperUp,
            boolean kafkaUp,
            boolean kafkaConfigured,
            SortedMap<String, GroupSample> groups,
            List<String> errors,
            long samples) {
        boolean up() {
            return zookeeperUp && (kafkaUp || !kafkaConfigured);
        }
    }

    private final Settings settings;
    private final GroupAdmin admin;
    private final GroupAdmin zkOnly;
    private final Optional<CachedLogBounds> kafka;
    private final Clock clock;
    private final String namespace;
    private final MonitorMetrics metrics = new MonitorMetrics();
    private final Map<String, LagHistory> histories = new ConcurrentHashMap<>();
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "groupkeeper-monitor-sampler");
        t.setDaemon(true);
        return t;
    });
    private volatile State state;
    private MonitorServer server;
    private long sampleCount;

    /**
     * @param admin  the admin that reads groups, with {@code kafka} as its log bounds when present
     * @param zkOnly an admin on the same store without log bounds (for groups first seen while Kafka is down)
     */
    public Monitor(
            Settings settings,
            GroupAdmin admin,
            GroupAdmin zkOnly,
            Optional<CachedLogBounds> kafka,
            Clock clock,
            String namespace) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.admin = Objects.requireNonNull(admin, "admin");
        this.zkOnly = Objects.requireNonNull(zkOnly, "zkOnly");
        this.kafka = Objects.requireNonNull(kafka, "kafka");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.namespace = namespace;
        this.state = new State(clock.instant(), false, false, kafka.isPresent(), new TreeMap<>(), List.of(), 0);
    }

    /** Takes the first sample, starts serving and sampling every interval; returns this. */
    public Monitor start() throws IOException {
        sample();
        server = new MonitorServer(new InetSocketAddress(settings.bind(), settings.port()), this);
        server.start();
        long ms = settings.interval().toMillis();
        sampler.scheduleWithFixedDelay(this::sampleQuietly, ms, ms, TimeUnit.MILLISECONDS);
        return this;
    }

    /** The port served (the one asked for, or the one chosen for port 0). */
    public int port() {
        return server.port();
    }

    State state() {
        return state;
    }

    Settings settings() {
        return settings;
    }

    String namespace() {
        return namespace;
    }

    MonitorMetrics metrics() {
        return metrics;
    }

    Optional<LagHistory> history(String group) {
        return Optional.ofNullable(histories.get(group));
    }

    private void sampleQuietly() {
        try {
            sample();
        } catch (RuntimeException | Error e) {
            // Never let the schedule die: a scheduled task that throws is never run again, silently.
            LOG.warn("monitor: sampling failed: {}", e.toString());
        }
    }

    /**
     * Whether the last sample is older than a running sampler would leave it: three intervals and a minute (each call
     * a sample makes is bounded by its timeouts). A stalled or dead sampler then shows as DOWN, not as frozen values.
     */
    boolean stale() {
        Duration bound = settings.interval().multipliedBy(3).plusMinutes(1);
        return Duration.between(state.at(), clock.instant()).compareTo(bound) > 0;
    }

    /** Whether the monitor is up now: the last sample reached the servers, and it is recent ({@link #stale}). */
    boolean upNow() {
        return state.up() && !stale();
    }

    /** One round: every group, then publish. Runs on the sampling thread (and once in {@link #start()}). */
    synchronized void sample() {
        Instant now = clock.instant();
        State before = state;
        kafka.ifPresent(CachedLogBounds::beginSample); // every log end read fresh once in this sample
        List<String> errors = new ArrayList<>();
        List<GroupSummary> listed;
        try {
            listed = admin.listGroups();
        } catch (RuntimeException e) {
            errors.add("ZooKeeper: " + e.getMessage());
            publish(new State(now, false, before.kafkaUp(), kafka.isPresent(), before.groups(), errors, ++sampleCount));
            return;
        }
        boolean kafkaUp = kafka.map(k -> k.kafka().reachable()).orElse(false);
        if (kafka.isPresent() && !kafkaUp) {
            errors.add(kafka.get().describe() + ": unreachable");
        }
        SortedMap<String, GroupSample> groups = new TreeMap<>();
        for (GroupSummary g : listed) {
            GroupSample previous = before.groups().get(g.group());
            try {
                Optional<GroupAdmin.Inspection> seen;
                if (kafka.isPresent() && !kafkaUp && previous != null) {
                    groups.put(g.group(), previous); // Kafka down: serve the last values
                    continue;
                }
                seen = (kafkaUp || kafka.isEmpty() ? admin : zkOnly)
                        .tryInspect(g.group(), settings.statusWindow(), settings.maxLagTime());
                if (seen.isEmpty()) {
                    continue; // deleted since listed
                }
                GroupSample sample = next(g.group(), now, seen.get(), previous, kafkaUp || kafka.isEmpty());
                groups.put(g.group(), sample);
            } catch (RuntimeException e) {
                errors.add("group " + g.group() + ": " + e.getMessage());
                if (kafka.isPresent() && e instanceof AdminException) {
                    kafkaUp = false;
                }
                if (previous != null) {
                    groups.put(g.group(), previous);
                }
            }
        }
        histories.keySet().retainAll(groups.keySet());
        publish(new State(
                now,
                true,
                kafkaUp,
                kafka.isPresent(),
                Collections.unmodifiableSortedMap(groups),
                List.copyOf(errors),
                ++sampleCount));
    }

    private GroupSample next(
            String group, Instant now, GroupAdmin.Inspection seen, GroupSample previous, boolean withKafka) {
        GroupDescription d = seen.description();
        long rebalances = 0;
        long commits = 0;
        double rate = 0;
        if (previous != null) {
            long genBefore = previous.description().generation();
            long delta = d.generation() - genBefore;
            rebalances = previous.rebalances() + (delta > 0 ? delta : delta < 0 ? 1 : 0);
            long writeDelta = writesSince(previous.description(), d);
            commits = previous.commits() + writeDelta;
            double seconds = Duration.between(previous.at(), now).toMillis() / 1000.0;
            rate = seconds > 0 ? writeDelta / seconds : previous.commitRate();
        }
        GroupSample sample = new GroupSample(
                group, now, d, withKafka ? Optional.of(seen.status()) : Optional.empty(), rebalances, commits, rate);
        histories
                .computeIfAbsent(group, k -> new LagHistory(settings.history(), settings.interval()))
                .add(new LagHistory.Point(
                        now, sample.totalLag(), sample.maxLagSeconds().orElse(Double.NaN)));
        return sample;
    }

    /**
     * Offset-node writes between two descriptions, partition by partition: a node deleted or recreated meanwhile (its
     * version starting again) counts none, and takes no other partition's commits with it.
     */
    static long writesSince(GroupDescription before, GroupDescription now) {
        Map<TopicPartition, Long> was = new HashMap<>();
        before.partitions().forEach(p -> was.put(p.partition(), Math.max(0, p.offsetWrites())));
        long delta = 0;
        for (GroupDescription.Partition p : now.partitions()) {
            long w = Math.max(0, p.offsetWrites());
            delta += Math.max(0, w - was.getOrDefault(p.partition(), 0L)); // a node new since: all its writes
        }
        return delta;
    }

    private void publish(State s) {
        metrics.update(s.groups().values(), s.samples());
        metrics.up(s.up());
        state = s;
    }

    @Override
    public void close() {
        sampler.shutdownNow();
        if (server != null) {
            server.stop();
        }
    }
}
