package io.groupkeeper.embedded;

import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link EmbeddedZooKeeper} and an {@link EmbeddedKafka} in one place: {@link #start()} starts ZooKeeper first,
 * then Kafka; {@link #close()} stops them in reverse order. If Kafka fails to start, ZooKeeper is stopped again
 * before the failure is rethrown, so nothing is left running.
 *
 * <pre>{@code
 * try (EmbeddedServers servers = EmbeddedServers.builder().build().start()) {
 *     servers.kafka().createTopic("orders", 3);
 *     run(servers.zkConnectString(), servers.bootstrapServers());
 * }
 * }</pre>
 */
public final class EmbeddedServers implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedServers.class);

    private final EmbeddedZooKeeper zooKeeper;
    private final EmbeddedKafka kafka;
    private boolean started;
    private boolean closed;

    private EmbeddedServers(EmbeddedZooKeeper zooKeeper, EmbeddedKafka kafka) {
        this.zooKeeper = zooKeeper;
        this.kafka = kafka;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builds and starts both servers with their defaults (free loopback ports, temporary directories). */
    public static EmbeddedServers startDefault() {
        return builder().build().start();
    }

    /**
     * Starts ZooKeeper, then Kafka. On failure everything already started is closed and the failure rethrown.
     *
     * @throws IllegalStateException if already started or closed
     */
    public synchronized EmbeddedServers start() {
        if (started || closed) {
            throw new IllegalStateException("EmbeddedServers can be started once");
        }
        started = true;
        long t0 = System.nanoTime();
        try {
            zooKeeper.start();
            kafka.start();
        } catch (RuntimeException | Error e) {
            closed = true;
            closeQuietly(e);
            throw e;
        }
        LOG.info(
                "embedded servers up in {} ms: zk={} bootstrap={}",
                (System.nanoTime() - t0) / 1_000_000,
                zooKeeper.connectString(),
                kafka.bootstrapServers());
        return this;
    }

    /** ZooKeeper's {@code "127.0.0.1:<port>"}. */
    public String zkConnectString() {
        return zooKeeper.connectString();
    }

    /** Kafka's {@code "127.0.0.1:<port>"}. */
    public String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    public EmbeddedZooKeeper zooKeeper() {
        return zooKeeper;
    }

    public EmbeddedKafka kafka() {
        return kafka;
    }

    /** Stops Kafka, then ZooKeeper. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeQuietly(null);
    }

    private void closeQuietly(Throwable primary) {
        for (AutoCloseable server : new AutoCloseable[] {kafka, zooKeeper}) {
            try {
                server.close();
            } catch (Exception e) {
                if (primary != null) {
                    primary.addSuppressed(e);
                } else {
                    LOG.warn("error while stopping {}", server, e);
                }
            }
        }
    }

    @Override
    public String toString() {
        return "EmbeddedServers[" + zooKeeper + ", " + kafka + "]";
    }

    /** Options for {@link EmbeddedServers}: one builder per server, each validating its own options. */
    public static final class Builder {
        private EmbeddedZooKeeper.Builder zooKeeper = EmbeddedZooKeeper.builder();
        private EmbeddedKafka.Builder kafka = EmbeddedKafka.builder();

        private Builder() {}

        /** Replaces the ZooKeeper options, e.g. {@code zooKeeper(EmbeddedZooKeeper.builder().port(2181))}. */
        public Builder zooKeeper(EmbeddedZooKeeper.Builder zooKeeper) {
            this.zooKeeper = Objects.requireNonNull(zooKeeper, "zooKeeper");
            return this;
        }

        /** Replaces the Kafka options, e.g. {@code kafka(EmbeddedKafka.builder().port(9092))}. */
        public Builder kafka(EmbeddedKafka.Builder kafka) {
            this.kafka = Objects.requireNonNull(kafka, "kafka");
            return this;
        }

        /** Shortcut for the ZooKeeper client port (0 = free port). */
        public Builder zkPort(int port) {
            zooKeeper.port(Ports.checkPort("zkPort", port));
            return this;
        }

        /** Shortcut for the Kafka PLAINTEXT port (0 = free port). */
        public Builder kafkaPort(int port) {
            kafka.port(Ports.checkPort("kafkaPort", port));
            return this;
        }

        /** Shortcut for {@link EmbeddedKafka.Builder#brokerProperty(String, String)}. */
        public Builder brokerProperty(String key, String value) {
            kafka.brokerProperty(key, value);
            return this;
        }

        /** Shortcut for {@code quietLogs} on both servers; default true. */
        public Builder quietLogs(boolean quietLogs) {
            zooKeeper.quietLogs(quietLogs);
            kafka.quietLogs(quietLogs);
            return this;
        }

        public EmbeddedServers build() {
            EmbeddedZooKeeper zk = zooKeeper.build();
            EmbeddedKafka k = kafka.build();
            return new EmbeddedServers(zk, k);
        }
    }
}
