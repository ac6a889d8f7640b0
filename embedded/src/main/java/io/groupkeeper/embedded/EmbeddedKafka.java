package io.groupkeeper.embedded;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.BindException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntSupplier;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka cluster running in this JVM: one {@link KafkaRaftServer} in KRaft combined mode
 * ({@code process.roles=broker,controller}, {@code node.id=1}), with a PLAINTEXT listener and a CONTROLLER listener
 * on {@code 127.0.0.1}.
 *
 * <pre>{@code
 * try (EmbeddedKafka kafka = EmbeddedKafka.builder().brokerProperty("group.consumer.heartbeat.interval.ms", "500")
 *         .build().start()) {
 *     kafka.createTopic("orders", 3);
 *     producerProps.put("bootstrap.servers", kafka.bootstrapServers());
 * }
 * }</pre>
 *
 * <p>Defaults tuned for one node and for tests: every internal topic has replication factor 1,
 * {@code group.initial.rebalance.delay.ms=0}, {@code auto.create.topics.enable=false}, small
 * {@code __consumer_offsets}/{@code __transaction_state} (5 partitions each) and a 2 MiB log-cleaner buffer;
 * each is overridable with {@link Builder#brokerProperty(String, String)}. Ports default to free loopback ports;
 * storage defaults to a temporary directory, formatted with a random cluster id and deleted by {@link #close()}
 * (a {@linkplain Builder#logDir(Path) given log directory} is formatted once and kept).
 *
 * <p>Not restartable: {@link #start()} once, {@link #close()} once (extra calls to {@code close} are no-ops).
 *
 * <p>About 570 lines, a third of them its builder: formatting KRaft storage, binding with retries on port races,
 * waiting until the broker really serves (metadata and list-offsets, not just "started") and a close that leaves no
 * thread or directory behind are one lifecycle, and splitting it would spread the broker's state over classes.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);

    static final int NODE_ID = 1;
    static final String BROKER_LISTENER = "PLAINTEXT";
    static final String CONTROLLER_LISTENER = "CONTROLLER";

    /** Options that {@link EmbeddedKafka} manages itself and that {@link Builder#brokerProperty} must not set. */
    static final Set<String> MANAGED_PROPERTIES = Set.of(
            "process.roles",
            "node.id",
            "broker.id",
            "listeners",
            "advertised.listeners",
            "listener.security.protocol.map",
            "controller.listener.names",
            "inter.broker.listener.name",
            "security.inter.broker.protocol",
            "controller.quorum.voters",
            "controller.quorum.bootstrap.servers",
            "log.dirs",
            "log.dir",
            "metadata.log.dir");

    private static final int BIND_ATTEMPTS = 3;

    private final int requestedPort;
    private final int requestedControllerPort;
    private final Path requestedLogDir;
    private final Duration startTimeout;
    private final Duration operationTimeout;
    private final Map<String, String> brokerProperties;
    private final boolean quietLogs;
    private final IntSupplier freePorts;

    private KafkaRaftServer server;
    private Admin admin;
    private Path baseDir;
    private boolean deleteBaseDir;
    private int port;
    private int controllerPort;
    private String clusterId;
    private State state = State.NEW;

    private enum State {
        NEW,
        STARTED,
        CLOSED
    }

    private EmbeddedKafka(Builder b) {
        this.requestedPort = b.port;
        this.requestedControllerPort = b.controllerPort;
        this.requestedLogDir = b.logDir;
        this.startTimeout = b.startTimeout;
        this.operationTimeout = b.operationTimeout;
        this.brokerProperties = Map.copyOf(b.brokerProperties);
        this.quietLogs = b.quietLogs;
        this.freePorts = b.freePorts;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builds and starts a broker with the defaults: free loopback ports and a temporary log directory. */
    public static EmbeddedKafka startDefault() {
        return builder().build().start();
    }

    /**
     * Formats storage, starts the broker+controller and returns once the broker is unfenced and answers
     * metadata requests.
     *
     * @throws IllegalStateException if already started or closed
     * @throws EmbeddedServerException if it did not start (everything is cleaned up)
     */
    public synchronized EmbeddedKafka start() {
        if (state != State.NEW) {
            throw new IllegalStateException("EmbeddedKafka can be started once; state is " + state);
        }
        if (quietLogs) {
            ServerLogs.quiet();
        }
        long t0 = System.nanoTime();
        if (requestedLogDir != null) {
            baseDir = Dirs.ensureDirectory("logDir", requestedLogDir);
            deleteBaseDir = false;
        } else {
            baseDir = Dirs.createTemp("groupkeeper-kafka-");
            deleteBaseDir = true;
        }
        // Free ports are picked, released and then bound by the broker, so another process can take one in between:
        // retry with fresh ports then. A port the caller chose is not retried.
        int attempts = requestedPort == 0 && requestedControllerPort == 0 ? BIND_ATTEMPTS : 1;
        Exception last = null;
        for (int attempt = 1; attempt <= attempts; attempt++) {
            int brokerCandidate = requestedPort != 0 ? requestedPort : freePortOtherThan(requestedControllerPort);
            int controllerCandidate =
                    requestedControllerPort != 0 ? requestedControllerPort : freePortOtherThan(brokerCandidate);
            try {
                Properties props = brokerConfig(
                        brokerProperties, startTimeout, brokerCandidate, controllerCandidate, logDir().toString());
                KafkaConfig config = KafkaConfig.fromProps(props, false);
                format(config);
                server = new KafkaRaftServer(config, Time.SYSTEM);
                port = brokerCandidate;
                controllerPort = controllerCandidate;
                server.startup();
                awaitBrokerReady();
                state = State.STARTED;
                LOG.info(
                        "Kafka started on {} (controller port {}, cluster {}) in {} ms (dir {})",
                        bootstrapServers(),
                        controllerPort,
                        clusterId,
                        (System.nanoTime() - t0) / 1_000_000,
                        baseDir);
                return this;
            } catch (Exception e) {
                last = e;
                stopServerQuietly();
                boolean retry = attempt < attempts && isBindFailure(e);
                LOG.warn(
                        "Kafka did not start on ports {}/{} (attempt {}/{}){}: {}",
                        brokerCandidate,
                        controllerCandidate,
                        attempt,
                        attempts,
                        retry ? ", retrying" : "",
                        e.toString());
                if (!retry) {
                    break;
                }
                if (deleteBaseDir) { // start the next attempt from an empty, freshly formatted directory
                    deleteDirQuietly();
                    baseDir = Dirs.createTemp("groupkeeper-kafka-");
                }
            }
        }
        state = State.CLOSED;
        deleteDirQuietly();
        if (last instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        throw new EmbeddedServerException("Kafka did not start: " + last, last);
    }

    static Properties brokerConfig(
            Map<String, String> overrides, Duration startTimeout, int brokerPort, int ctrlPort, String logDir) {
        Properties p = singleReplicaDefaults();
        p.setProperty("server.max.startup.time.ms", Long.toString(startTimeout.toMillis()));
        p.putAll(overrides);
        // Managed options last, so nothing overrides them.
        p.setProperty("process.roles", "broker,controller");
        p.setProperty("node.id", Integer.toString(NODE_ID));
        p.setProperty("controller.quorum.voters", NODE_ID + "@" + Ports.LOOPBACK + ":" + ctrlPort);
        p.setProperty("controller.listener.names", CONTROLLER_LISTENER);
        p.setProperty("inter.broker.listener.name", BROKER_LISTENER);
        p.setProperty(
                "listener.security.protocol.map", BROKER_LISTENER + ":PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
        p.setProperty(
                "listeners",
                BROKER_LISTENER + "://" + Ports.LOOPBACK + ":" + brokerPort + "," + CONTROLLER_LISTENER + "://"
                        + Ports.LOOPBACK + ":" + ctrlPort);
        p.setProperty("advertised.listeners", BROKER_LISTENER + "://" + Ports.LOOPBACK + ":" + brokerPort);
        p.setProperty("log.dirs", logDir);
        p.setProperty("metadata.log.dir", logDir);
        return p;
    }

    /** Test-friendly defaults: one replica for every internal topic, small buffers (overridable here). */
    static Properties singleReplicaDefaults() {
        Properties p = new Properties();
        p.setProperty("offsets.topic.replication.factor", "1");
        p.setProperty("offsets.topic.num.partitions", "5");
        p.setProperty("transaction.state.log.replication.factor", "1");
        p.setProperty("transaction.state.log.min.isr", "1");
        p.setProperty("transaction.state.log.num.partitions", "5");
        p.setProperty("share.coordinator.state.topic.replication.factor", "1");
        p.setProperty("share.coordinator.state.topic.min.isr", "1");
        p.setProperty("default.replication.factor", "1");
        p.setProperty("min.insync.replicas", "1");
        p.setProperty("num.partitions", "1");
        p.setProperty("group.initial.rebalance.delay.ms", "0");
        p.setProperty("auto.create.topics.enable", "false");
        p.setProperty("log.cleaner.dedupe.buffer.size", Integer.toString(2 * 1024 * 1024));
        p.setProperty("num.network.threads", "2");
        p.setProperty("num.io.threads", "4");
        return p;
    }

    private Path logDir() {
        return baseDir.resolve("kraft-combined-logs");
    }

    private void format(KafkaConfig config) throws Exception {
        Path meta = logDir().resolve("meta.properties");
        if (Files.exists(meta)) {
            // A kept logDir started before: keep its cluster id. Formatting again (even with ignoreFormatted) with a
            // new random id made the second start fail ("Invalid cluster.id in .../meta.properties").
            Properties existing = new Properties();
            try (var in = Files.newInputStream(meta)) {
                existing.load(in);
            }
            clusterId = existing.getProperty("cluster.id");
            return;
        }
        Formatter formatter = new Formatter()
                .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                .setNodeId(NODE_ID)
                .setClusterId(Uuid.randomUuid().toString())
                .setControllerListenerName(CONTROLLER_LISTENER)
                .setMetadataLogDirectory(config.metadataLogDir())
                .setDirectories(List.of(logDir().toString()))
                .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                .setHasDynamicQuorum(false)
                .setWriteBootstrapSnapshot(true)
                .setIgnoreFormatted(true); // a kept logDir is formatted on the first start only
        formatter.run();
        clusterId = formatter.clusterId();
    }

    private void awaitBrokerReady() throws Exception {
        long deadline = System.nanoTime() + operationTimeout.toNanos();
        while (true) {
            try {
                var nodes = admin().describeCluster().nodes().get(remainingMillis(deadline), TimeUnit.MILLISECONDS);
                if (!nodes.isEmpty()) {
                    clusterId =
                            admin().describeCluster().clusterId().get(remainingMillis(deadline), TimeUnit.MILLISECONDS);
                    return;
                }
            } catch (ExecutionException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
            pause(deadline, "the broker to answer describeCluster");
        }
    }

    /** {@code "127.0.0.1:<port>"}, for {@code bootstrap.servers}. */
    public synchronized String bootstrapServers() {
        requireStarted();
        return Ports.LOOPBACK + ":" + port;
    }

    /** The PLAINTEXT (client) port. */
    public synchronized int port() {
        requireStarted();
        return port;
    }

    /** The CONTROLLER (KRaft quorum) port; clients never use it. */
    public synchronized int controllerPort() {
        requireStarted();
        return controllerPort;
    }

    public synchronized String clusterId() {
        requireStarted();
        return clusterId;
    }

    /** The base directory; the broker's single log directory (also the metadata log) is inside it. */
    public synchronized Path dataDir() {
        requireStarted();
        return baseDir;
    }

    public synchronized boolean isRunning() {
        return state == State.STARTED;
    }

    /** A fresh map with {@code bootstrap.servers} set, to build client configs on. */
    public Map<String, Object> clientProperties() {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return props;
    }

    /** Creates a topic with replication factor 1 and waits until every partition has a leader. */
    public void createTopic(String name, int partitions) {
        createTopic(name, partitions, Map.of());
    }

    /**
     * Whether every partition answers a ListOffsets request. Right after creation the broker may still recreate a
     * partition's log and reject a write it in fact stored (NOT_LEADER_OR_FOLLOWER), which turns an idempotent
     * producer's retry into OutOfOrderSequenceException; once ListOffsets answers for every partition, writes are safe.
     */
    private boolean answersListOffsets(String name, int partitions, long deadline) throws InterruptedException {
        Map<TopicPartition, OffsetSpec> spec = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            spec.put(new TopicPartition(name, p), OffsetSpec.latest());
        }
        try {
            admin().listOffsets(spec).all().get(remainingMillis(deadline), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }

    /**
     * Creates a topic with replication factor 1 and the given topic configs (e.g. {@code cleanup.policy}), and waits
     * until the broker's metadata shows every partition with a leader and every partition answers ListOffsets.
     *
     * @throws EmbeddedServerException if it fails (e.g. the topic exists) or does not show up in time
     */
    public void createTopic(String name, int partitions, Map<String, String> configs) {
        Checks.notBlank("topic name", name);
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, was " + partitions);
        }
        Objects.requireNonNull(configs, "configs");
        requireStarted();
        long deadline = System.nanoTime() + operationTimeout.toNanos();
        try {
            admin().createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs)))
                    .all()
                    .get(remainingMillis(deadline), TimeUnit.MILLISECONDS);
            while (true) {
                try {
                    TopicDescription d = admin().describeTopics(List.of(name))
                            .allTopicNames()
                            .get(remainingMillis(deadline), TimeUnit.MILLISECONDS)
                            .get(name);
                    if (d != null
                            && d.partitions().size() == partitions
                            && d.partitions().stream().allMatch(EmbeddedKafka::hasLeader)
                            && answersListOffsets(name, partitions, deadline)) {
                        return;
                    }
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                        throw e;
                    }
                }
                pause(deadline, "topic " + name + " to show " + partitions + " partitions with leaders");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EmbeddedServerException("interrupted while creating topic " + name, e);
        } catch (ExecutionException e) {
            throw new EmbeddedServerException("could not create topic " + name + ": " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new EmbeddedServerException("topic " + name + " not ready within " + operationTimeout, e);
        }
    }

    private static boolean hasLeader(TopicPartitionInfo p) {
        Node leader = p.leader();
        return leader != null && !leader.isEmpty();
    }

    private synchronized Admin admin() {
        if (admin == null) {
            Map<String, Object> props = new LinkedHashMap<>();
            props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, Ports.LOOPBACK + ":" + port);
            props.put(AdminClientConfig.CLIENT_ID_CONFIG, "groupkeeper-embedded-admin-" + port);
            admin = Admin.create(props);
        }
        return admin;
    }

    /** Shuts the broker down, waits for it, and deletes its temporary directory (a given logDir is kept). */
    @Override
    public synchronized void close() {
        if (state == State.CLOSED) {
            return;
        }
        boolean wasStarted = state == State.STARTED;
        state = State.CLOSED;
        long t0 = System.nanoTime();
        stopServerQuietly();
        deleteDirQuietly();
        if (wasStarted) {
            LOG.info("Kafka on port {} stopped in {} ms", port, (System.nanoTime() - t0) / 1_000_000);
        }
    }

    private void stopServerQuietly() {
        if (admin != null) {
            try {
                admin.close(Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                LOG.warn("error while closing the embedded admin client", e);
            }
            admin = null;
        }
        if (server != null) {
            try {
                server.shutdown();
                server.awaitShutdown();
            } catch (RuntimeException e) {
                LOG.warn("error while stopping Kafka", e);
            }
            server = null;
        }
    }

    private void deleteDirQuietly() {
        if (deleteBaseDir) {
            try {
                Dirs.deleteRecursively(baseDir);
            } catch (IOException e) {
                LOG.warn("could not delete Kafka temp dir {}", baseDir, e);
            }
        }
    }

    private int freePortOtherThan(int other) {
        for (int i = 0; i < 20; i++) {
            int candidate = freePorts.getAsInt();
            if (candidate != other) {
                return candidate;
            }
        }
        throw new IllegalStateException("could not find a second free loopback port");
    }

    private static boolean isBindFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException
                    || (t.getMessage() != null && t.getMessage().contains("Address already in use"))) {
                return true;
            }
        }
        return false;
    }

    private static long remainingMillis(long deadlineNanos) throws TimeoutException {
        long remaining = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        if (remaining <= 0) {
            throw new TimeoutException("deadline passed");
        }
        return remaining;
    }

    private static void pause(long deadlineNanos, String what) throws InterruptedException, TimeoutException {
        if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(25) > deadlineNanos) {
            throw new TimeoutException("timed out waiting for " + what);
        }
        Thread.sleep(25);
    }

    private void requireStarted() {
        if (state != State.STARTED) {
            throw new IllegalStateException("EmbeddedKafka is not running (state " + state + ")");
        }
    }

    @Override
    public String toString() {
        return "EmbeddedKafka[" + (state == State.STARTED ? Ports.LOOPBACK + ":" + port : state) + "]";
    }

    /** Options for {@link EmbeddedKafka}; every setter validates its argument at once. */
    public static final class Builder {
        private int port;
        private int controllerPort;
        private Path logDir;
        private Duration startTimeout = Duration.ofSeconds(60);
        private Duration operationTimeout = Duration.ofSeconds(30);
        private final Map<String, String> brokerProperties = new LinkedHashMap<>();
        private boolean quietLogs = true;
        private IntSupplier freePorts = Ports::freePort;

        private Builder() {}

        /** Test seam: where automatic ports come from. */
        Builder freePorts(IntSupplier freePorts) {
            this.freePorts = Objects.requireNonNull(freePorts, "freePorts");
            return this;
        }

        /** PLAINTEXT (client) port; 0 (the default) picks a free loopback port. */
        public Builder port(int port) {
            this.port = Ports.checkPort("port", port);
            return this;
        }

        /** CONTROLLER (KRaft) port; 0 (the default) picks a free loopback port. */
        public Builder controllerPort(int controllerPort) {
            this.controllerPort = Ports.checkPort("controllerPort", controllerPort);
            return this;
        }

        /** A directory to keep data in across runs (created if missing, never deleted); default: a temp dir. */
        public Builder logDir(Path logDir) {
            this.logDir = Objects.requireNonNull(logDir, "logDir");
            return this;
        }

        /** Upper bound for {@link #start()} (also {@code server.max.startup.time.ms}); default 60 s. */
        public Builder startTimeout(Duration startTimeout) {
            this.startTimeout = Checks.positive("startTimeout", startTimeout);
            return this;
        }

        /** Upper bound for {@link #createTopic} and the readiness check at start; default 30 s. */
        public Builder operationTimeout(Duration operationTimeout) {
            this.operationTimeout = Checks.positive("operationTimeout", operationTimeout);
            return this;
        }

        /**
         * Sets or overrides one broker property, e.g. {@code group.consumer.heartbeat.interval.ms}. Properties that
         * define the node's identity, listeners, quorum or directories are managed here and rejected.
         */
        public Builder brokerProperty(String key, String value) {
            Checks.notBlank("brokerProperty key", key);
            Objects.requireNonNull(value, () -> "brokerProperty value for '" + key + "'");
            if (MANAGED_PROPERTIES.contains(key)) {
                throw new IllegalArgumentException("brokerProperty '" + key
                        + "' is managed by EmbeddedKafka; use port(...)/controllerPort(...)/logDir(...) instead");
            }
            brokerProperties.put(key, value);
            return this;
        }

        /** {@link #brokerProperty(String, String)} for each entry. */
        public Builder brokerProperties(Map<String, String> properties) {
            Objects.requireNonNull(properties, "brokerProperties").forEach(this::brokerProperty);
            return this;
        }

        /** Whether {@link #start()} turns the broker's INFO logs down to WARN ({@link ServerLogs}); default true. */
        public Builder quietLogs(boolean quietLogs) {
            this.quietLogs = quietLogs;
            return this;
        }

        public EmbeddedKafka build() {
            if (port != 0 && port == controllerPort) {
                throw new IllegalArgumentException("port and controllerPort must differ, both were " + port);
            }
            if (logDir != null) {
                Checks.notAFile("logDir", logDir);
            }
            if (quietLogs) {
                ServerLogs.quiet(); // before the first Kafka class logs anything
            }
            // Let Kafka validate the broker properties now (placeholder ports and directory), not at start().
            try {
                KafkaConfig.fromProps(
                        brokerConfig(
                                brokerProperties,
                                startTimeout,
                                1,
                                2,
                                Path.of(System.getProperty("java.io.tmpdir"), "groupkeeper-kafka-validate")
                                        .toString()),
                        false);
            } catch (ConfigException | IllegalArgumentException e) {
                throw new IllegalArgumentException("invalid brokerProperty: " + e.getMessage(), e);
            }
            return new EmbeddedKafka(this);
        }
    }
}
