package io.groupkeeper.cli;

import io.groupkeeper.embedded.EmbeddedKafka;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real ZooKeeper (curator-test) and one in-process Kafka broker for each test JVM of this module, started by the
 * first class that needs them and closed when the JVM exits. Not JUnit's root store: with several test JVMs Surefire
 * runs each class in a launcher session of its own, and the root store would close the servers after the first class.
 * Test classes keep their data apart by unique group and topic names.
 */
public final class SharedServers implements BeforeAllCallback {

    private static volatile Servers servers;

    @Override
    public void beforeAll(ExtensionContext context) {
        start();
    }

    private static synchronized void start() {
        if (servers == null) {
            Servers started = new Servers();
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "shared-servers-stop"));
            servers = started;
        }
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
        public void close() {
            try {
                kafka.close();
            } finally {
                try {
                    zk.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }
}
