package io.groupkeeper.embedded;

import java.util.concurrent.CountDownLatch;

/**
 * Starts an embedded ZooKeeper and Kafka, prints {@code zk=<host:port>} and {@code bootstrap=<host:port>}, and runs
 * until the JVM is asked to stop (Ctrl-C / SIGTERM), when a shutdown hook stops both and deletes their data.
 *
 * <p>Usage: {@code EmbeddedServersMain [--zk-port N] [--kafka-port N] [--verbose]} (ports default to free ones;
 * {@code --verbose} keeps the servers' INFO logs).
 */
public final class EmbeddedServersMain {

    private EmbeddedServersMain() {}

    public static void main(String[] args) throws InterruptedException {
        EmbeddedServers.Builder builder = EmbeddedServers.builder();
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--zk-port" -> builder.zkPort(parsePort("--zk-port", args, ++i));
                    case "--kafka-port" -> builder.kafkaPort(parsePort("--kafka-port", args, ++i));
                    case "--verbose" -> builder.quietLogs(false);
                    case "-h", "--help" -> {
                        System.out.println("usage: EmbeddedServersMain [--zk-port N] [--kafka-port N] [--verbose]");
                        return;
                    }
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.exit(2);
        }

        long t0 = System.nanoTime();
        EmbeddedServers servers;
        try {
            servers = builder.build().start();
        } catch (RuntimeException e) {
            System.err.println("error: could not start the embedded servers: " + e.getMessage());
            System.exit(1);
            return;
        }
        long millis = (System.nanoTime() - t0) / 1_000_000;
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            System.out.println("stopping embedded servers");
                            servers.close();
                            System.out.println("stopped");
                            stopped.countDown();
                        },
                        "embedded-servers-shutdown"));
        System.out.println("zk=" + servers.zkConnectString());
        System.out.println("bootstrap=" + servers.bootstrapServers());
        System.out.println("started in " + millis + " ms; press Ctrl-C to stop");
        System.out.flush();
        stopped.await();
    }

    private static int parsePort(String option, String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a port number");
        }
        try {
            return Integer.parseInt(args[i]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be a number, was '" + args[i] + "'");
        }
    }
}
