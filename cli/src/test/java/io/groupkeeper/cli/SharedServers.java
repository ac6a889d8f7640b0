package io.groupkeeper.cli;

import io.groupkeeper.embedded.EmbeddedKafka;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real ZooKeeper (curator-test) and one in-process Kafka broker for the whole test run of this module, started by
 * the first class that needs them and closed when the run ends (JUnit's root store). Test classes keep their data
 * apart by unique group and topic names.
 */
public final class SharedServers implements BeforeAllCallback {

    private static volatile Servers servers;

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(Servers.class, k -> start(), Servers.class);
    }

    private static synchronized Servers start() {
        if (servers == null) {
            servers = new Servers();
        }
        return servers;
    }

    public static String zk() {
        return servers.zk.getConnectString();
    }

    public static String bootstrap() {
        return servers.kafka.bootstrapServers();
    }

    public static EmbeddedKafka kafka() {
        return servers.kafka;
    }

    static final class Servers implements AutoCloseable {
        final TestingServer zk;
        final EmbeddedKafka kafka;

        Servers() {
            try {
                zk = new TestingServer(true);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            kafka = EmbeddedKafka.builder().build().start();
        }

        @Override
        public void close() throws Exception {
            try {
                kafka.close();
            } finally {
                zk.close();
            }
        }
    }
}
