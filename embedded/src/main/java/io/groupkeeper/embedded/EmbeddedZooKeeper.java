package io.groupkeeper.embedded;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real standalone ZooKeeper server running in this JVM ({@link ZooKeeperServerEmbedded}), bound to
 * {@code 127.0.0.1}.
 *
 * <pre>{@code
 * try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().build().start()) {
 *     CuratorFramework client = CuratorFrameworkFactory.newClient(zk.connectString(), retry);
 * }
 * }</pre>
 *
 * <p>By default it picks a free loopback port and a temporary data directory that {@link #close()} deletes; a
 * {@linkplain Builder#dataDir(Path) given data directory} is kept. The AdminServer (Jetty) is disabled, the server
 * never calls {@code System.exit} ({@link ExitHandler#LOG_ONLY}), and {@code tickTime=500} so sessions can be as
 * short as 1 s ({@code minSessionTimeout=1000}, {@code maxSessionTimeout=60000}); all overridable through
 * {@link Builder#property(String, String)}.
 *
 * <p>Not restartable: {@link #start()} once, {@link #close()} once (extra calls to {@code close} are no-ops). Needs
 * {@code io.dropwizard.metrics:metrics-core} at run time, which this module brings.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedZooKeeper.class);

    /** Options that {@link EmbeddedZooKeeper} manages itself and that {@link Builder#property} must not set. */
    static final Set<String> MANAGED_PROPERTIES = Set.of(
            "clientPort", "clientPortAddress", "dataDir", "dataLogDir", "secureClientPort", "admin.enableServer");

    private static final int BIND_ATTEMPTS = 3;

    private final int requestedPort;
    private final Path requestedDataDir;
    private final Duration startTimeout;
    private final Map<String, String> properties;
    private final boolean quietLogs;

    private ZooKeeperServerEmbedded server;
    private Path baseDir;
    private boolean deleteBaseDir;
    private int port;
    private State state = State.NEW;

    private enum State {
        NEW,
        STARTED,
        CLOSED
    }

    private EmbeddedZooKeeper(Builder b) {
        this.requestedPort = b.port;
        this.requestedDataDir = b.dataDir;
        this.startTimeout = b.startTimeout;
        this.properties = Map.copyOf(b.properties);
        this.quietLogs = b.quietLogs;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builds and starts a server with the defaults: a free loopback port and a temporary data directory. */
    public static EmbeddedZooKeeper startDefault() {
        return builder().build().start();
    }

    /**
     * Starts the server and returns once it accepts connections.
     *
     * @throws IllegalStateException if already started or closed
     * @throws EmbeddedServerException if it did not start within the start timeout (everything is cleaned up)
     */
    public synchronized EmbeddedZooKeeper start() {
        if (state != State.NEW) {
            throw new IllegalStateException("EmbeddedZooKeeper can be started once; state is " + state);
        }
        if (quietLogs) {
            ServerLogs.quiet();
        }
        if (requestedPort != 0 && !Ports.isFree(requestedPort)) {
            // Checked up front: ZooKeeper reports a bind failure only by never finishing start(timeout).
            state = State.CLOSED;
            throw new EmbeddedServerException(
                    "ZooKeeper port " + requestedPort + " on " + Ports.LOOPBACK + " is already in use");
        }
        long t0 = System.nanoTime();
        if (requestedDataDir != null) {
            baseDir = Dirs.ensureDirectory("dataDir", requestedDataDir);
            deleteBaseDir = false;
        } else {
            baseDir = Dirs.createTemp("groupkeeper-zk-");
            deleteBaseDir = true;
        }
        int attempts = requestedPort == 0 ? BIND_ATTEMPTS : 1;
        Exception last = null;
        for (int attempt = 1; attempt <= attempts; attempt++) {
            int candidate = requestedPort == 0 ? Ports.freePort() : requestedPort;
            try {
                server = ZooKeeperServerEmbedded.builder()
                        .baseDir(baseDir)
                        .configuration(configuration(candidate))
                        .exitHandler(ExitHandler.LOG_ONLY)
                        .build();
                server.start(startTimeout.toMillis());
                port = candidate;
                state = State.STARTED;
                LOG.info(
                        "ZooKeeper started on {} in {} ms (dir {})",
                        connectString(),
                        (System.nanoTime() - t0) / 1_000_000,
                        baseDir);
                return this;
            } catch (Exception e) {
                last = e;
                closeServerQuietly();
                LOG.warn(
                        "ZooKeeper did not start on port {} (attempt {}/{}): {}",
                        candidate,
                        attempt,
                        attempts,
                        e.toString());
            }
        }
        state = State.CLOSED;
        deleteDirQuietly();
        throw new EmbeddedServerException(
                "ZooKeeper did not start" + (requestedPort == 0 ? "" : " on port " + requestedPort) + " within "
                        + startTimeout,
                last);
    }

    private Properties configuration(int clientPort) {
        Properties p = new Properties();
        p.setProperty("tickTime", "500");
        p.setProperty("minSessionTimeout", "1000");
        p.setProperty("maxSessionTimeout", "60000");
        p.setProperty("initLimit", "10");
        p.setProperty("syncLimit", "5");
        p.setProperty("maxClientCnxns", "0");
        p.setProperty("4lw.commands.whitelist", "*");
        p.putAll(properties);
        // Managed options last, so nothing overrides them.
        p.setProperty("dataDir", baseDir.resolve("data").toString());
        p.setProperty("clientPort", Integer.toString(clientPort));
        p.setProperty("clientPortAddress", Ports.LOOPBACK);
        // Note: ZooKeeper turns unknown keys into system properties, so this sets zookeeper.admin.enableServer.
        p.setProperty("admin.enableServer", "false");
        return p;
    }

    /** {@code "127.0.0.1:<port>"}, for ZooKeeper and Curator clients. */
    public synchronized String connectString() {
        requireStarted();
        return Ports.LOOPBACK + ":" + port;
    }

    /** The client port. */
    public synchronized int port() {
        requireStarted();
        return port;
    }

    /** The base directory (snapshots and transaction logs are under {@code data/}). */
    public synchronized Path dataDir() {
        requireStarted();
        return baseDir;
    }

    public synchronized boolean isRunning() {
        return state == State.STARTED;
    }

    /** Stops the server and deletes its temporary directory (a given {@code dataDir} is kept). Idempotent. */
    @Override
    public synchronized void close() {
        if (state == State.CLOSED) {
            return;
        }
        boolean wasStarted = state == State.STARTED;
        state = State.CLOSED;
        long t0 = System.nanoTime();
        closeServerQuietly();
        deleteDirQuietly();
        if (wasStarted) {
            LOG.info("ZooKeeper on port {} stopped in {} ms", port, (System.nanoTime() - t0) / 1_000_000);
        }
    }

    private void closeServerQuietly() {
        if (server != null) {
            try {
                server.close();
            } catch (RuntimeException e) {
                LOG.warn("error while stopping ZooKeeper", e);
            }
            server = null;
        }
    }

    private void deleteDirQuietly() {
        if (baseDir == null) {
            return;
        }
        try {
            if (deleteBaseDir) {
                Dirs.deleteRecursively(baseDir);
            } else {
                // ZooKeeperServerEmbedded writes a fresh zookeeper.configuration*.properties on every boot.
                try (DirectoryStream<Path> generated =
                        Files.newDirectoryStream(baseDir, "zookeeper.configuration*.properties")) {
                    for (Path file : generated) {
                        Files.deleteIfExists(file);
                    }
                }
            }
        } catch (IOException e) {
            LOG.warn("could not clean up ZooKeeper dir {}", baseDir, e);
        }
    }

    private void requireStarted() {
        if (state != State.STARTED) {
            throw new IllegalStateException("EmbeddedZooKeeper is not running (state " + state + ")");
        }
    }

    @Override
    public String toString() {
        return "EmbeddedZooKeeper[" + (state == State.STARTED ? Ports.LOOPBACK + ":" + port : state) + "]";
    }

    /** Options for {@link EmbeddedZooKeeper}; every setter validates its argument at once. */
    public static final class Builder {
        private int port;
        private Path dataDir;
        private Duration startTimeout = Duration.ofSeconds(30);
        private final Map<String, String> properties = new LinkedHashMap<>();
        private boolean quietLogs = true;

        private Builder() {}

        /** Client port; 0 (the default) picks a free loopback port. */
        public Builder port(int port) {
            this.port = Ports.checkPort("port", port);
            return this;
        }

        /** A directory to keep data in across runs (created if missing, never deleted); default: a temp dir. */
        public Builder dataDir(Path dataDir) {
            this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
            return this;
        }

        /** How long {@link #start()} waits for the server; default 30 s. */
        public Builder startTimeout(Duration startTimeout) {
            this.startTimeout = Checks.positive("startTimeout", startTimeout);
            return this;
        }

        /**
         * Any other {@code zoo.cfg} option, e.g. {@code maxSessionTimeout} or {@code tickTime}. Options managed by
         * this class ({@code clientPort, clientPortAddress, dataDir, dataLogDir, secureClientPort,
         * admin.enableServer}) are rejected.
         */
        public Builder property(String key, String value) {
            Checks.notBlank("property key", key);
            Objects.requireNonNull(value, () -> "property value for '" + key + "'");
            if (MANAGED_PROPERTIES.contains(key)) {
                throw new IllegalArgumentException(
                        "property '" + key + "' is managed by EmbeddedZooKeeper; use port(...)/dataDir(...) instead");
            }
            properties.put(key, value);
            return this;
        }

        /** Whether {@link #start()} turns the server's INFO logs down to WARN ({@link ServerLogs}); default true. */
        public Builder quietLogs(boolean quietLogs) {
            this.quietLogs = quietLogs;
            return this;
        }

        public EmbeddedZooKeeper build() {
            if (dataDir != null) {
                Checks.notAFile("dataDir", dataDir);
            }
            if (quietLogs) {
                ServerLogs.quiet();
            }
            return new EmbeddedZooKeeper(this);
        }
    }
}
