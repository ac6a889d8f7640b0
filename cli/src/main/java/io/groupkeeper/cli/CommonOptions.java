package io.groupkeeper.cli;

import io.groupkeeper.cli.kafka.KafkaLogBounds;
import io.groupkeeper.zkprotocol.admin.AdminException;
import io.groupkeeper.zkprotocol.admin.GroupAdmin;
import io.groupkeeper.zookeeper.admin.ZooKeeperAdmin;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import picocli.CommandLine.Option;

/** The options every command shares: where ZooKeeper and Kafka are, and how to print. */
public final class CommonOptions {

    /** How results are printed. */
    public enum Output {
        table,
        json
    }

    @Option(
            names = "--zk",
            paramLabel = "HOST:PORT[,...][/chroot]",
            defaultValue = "${env:GROUPKEEPER_ZK:-127.0.0.1:2181}",
            description = "ZooKeeper connect string (default: ${DEFAULT-VALUE}; env GROUPKEEPER_ZK).")
    String zk;

    @Option(
            names = "--namespace",
            paramLabel = "PATH",
            defaultValue = "${env:GROUPKEEPER_NAMESPACE:-groupkeeper}",
            description =
                    "Root of groupkeeper's nodes in ZooKeeper, without leading slash (default: ${DEFAULT-VALUE}).")
    String namespace;

    @Option(
            names = "--bootstrap",
            paramLabel = "HOST:PORT[,...]",
            defaultValue = "${env:GROUPKEEPER_BOOTSTRAP}",
            description = "Kafka bootstrap servers: log bounds for lag, clamping and time-based resets "
                    + "(env GROUPKEEPER_BOOTSTRAP). Without it, log ends are unknown and targets are not clamped.")
    String bootstrap;

    @Option(
            names = "--command-config",
            paramLabel = "FILE",
            description = "Kafka client properties (security.protocol, sasl.*, ssl.*, ...), passed through untouched.")
    Path commandConfig;

    @Option(
            names = "--zk-digest",
            paramLabel = "USER:PASSWORD",
            defaultValue = "${env:GROUPKEEPER_ZK_DIGEST}",
            description = "ZooKeeper digest credentials, for groups whose nodes have ACLs (env GROUPKEEPER_ZK_DIGEST).")
    String digest;

    @Option(
            names = "--timeout",
            paramLabel = "SECONDS",
            defaultValue = "10",
            description = "How long to wait for ZooKeeper and Kafka (default: ${DEFAULT-VALUE}).")
    int timeoutSeconds;

    @Option(
            names = "--output",
            paramLabel = "table|json",
            defaultValue = "table",
            description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    Output output;

    Duration timeout() {
        if (timeoutSeconds < 1) {
            throw new IllegalArgumentException("--timeout must be at least 1 second, was " + timeoutSeconds);
        }
        return Duration.ofSeconds(timeoutSeconds);
    }

    boolean json() {
        return output == Output.json;
    }

    boolean hasBootstrap() {
        return bootstrap != null && !bootstrap.isBlank();
    }

    String namespace() {
        String ns = namespace.strip();
        while (ns.startsWith("/")) {
            ns = ns.substring(1);
        }
        return ns;
    }

    Properties kafkaProperties() {
        Properties p = new Properties();
        if (commandConfig != null) {
            try (Reader r = Files.newBufferedReader(commandConfig, StandardCharsets.UTF_8)) {
                p.load(r);
            } catch (IOException e) {
                throw new AdminException("cannot read --command-config " + commandConfig + ": "
                        + (e instanceof NoSuchFileException ? "no such file" : e.getMessage()));
            }
        }
        return p;
    }

    /** Opens Kafka's Admin (lazy: it connects on first use); requires --bootstrap. */
    KafkaLogBounds kafka() {
        if (!hasBootstrap()) {
            throw new AdminException("--bootstrap is required for this command");
        }
        return new KafkaLogBounds(bootstrap.strip(), kafkaProperties(), timeout());
    }

    /** Connects to ZooKeeper; with {@code --bootstrap}, log bounds come from Kafka. */
    Session open() {
        KafkaLogBounds bounds = hasBootstrap() ? kafka() : null;
        try {
            ZooKeeperAdmin.Builder b = ZooKeeperAdmin.builder()
                    .connectString(zk)
                    .namespace(namespace())
                    .connectionTimeout(timeout())
                    .logBounds(bounds);
            if (digest != null && !digest.isBlank()) {
                b.digest(digest);
            }
            return new Session(b.build(), bounds);
        } catch (RuntimeException e) {
            if (bounds != null) {
                bounds.close();
            }
            throw e;
        }
    }

    /** A connected admin and, with --bootstrap, the Kafka log bounds; closes both. */
    record Session(GroupAdmin admin, KafkaLogBounds kafka) implements AutoCloseable {
        @Override
        public void close() {
            try {
                admin.close();
            } finally {
                if (kafka != null) {
                    kafka.close();
                }
            }
        }
    }
}
