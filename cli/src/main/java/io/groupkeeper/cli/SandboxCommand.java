package io.groupkeeper.cli;

import io.groupkeeper.embedded.EmbeddedServers;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code groupkeeper sandbox}: an embedded ZooKeeper and a single-node Kafka in this process until Ctrl-C (or until
 * the running thread is interrupted), printing {@code zk=<host:port>} and {@code bootstrap=<host:port>}.
 */
@Command(
        name = "sandbox",
        mixinStandardHelpOptions = true,
        description = {
            "Starts an embedded ZooKeeper and a single-node Kafka (KRaft) and keeps both up until Ctrl-C.",
            "Prints zk=<host:port> and bootstrap=<host:port>; their data is deleted on exit."
        },
        footer = {
            "",
            "Example:",
            "  groupkeeper sandbox --topic orders:3",
            "  groupkeeper groups list --zk <zk> ; groupkeeper groups describe --group g --zk <zk> --bootstrap <bootstrap>"
        })
public final class SandboxCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(
            names = "--zk-port",
            paramLabel = "PORT",
            defaultValue = "0",
            description = "ZooKeeper port (default: a free port).")
    int zkPort;

    @Option(
            names = "--kafka-port",
            paramLabel = "PORT",
            defaultValue = "0",
            description = "Kafka port (default: a free port).")
    int kafkaPort;

    @Option(
            names = "--topic",
            paramLabel = "NAME:PARTITIONS",
            description = "Create this Kafka topic at start; repeatable.")
    List<String> topics = new ArrayList<>();

    @Option(names = "--verbose", description = "Keep the servers' INFO logs.")
    boolean verbose;

    @Override
    public Integer call() {
        List<String[]> toCreate = new ArrayList<>();
        for (String t : topics) {
            String[] parts = t.split(":");
            if (parts.length != 2 || !parts[1].matches("\\d+") || Integer.parseInt(parts[1]) < 1) {
                throw new ParameterException(
                        spec.commandLine(), "--topic must be NAME:PARTITIONS like orders:3, was '" + t + "'");
            }
            toCreate.add(parts);
        }
        if (verbose) {
            Logging.verbose();
        } else {
            Logging.quietServers();
        }
        PrintWriter out = spec.commandLine().getOut();
        EmbeddedServers servers = EmbeddedServers.builder()
                .zkPort(zkPort)
                .kafkaPort(kafkaPort)
                .quietLogs(!verbose)
                .build()
                .start();
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(
                () -> {
                    servers.close();
                    stopped.countDown();
                },
                "groupkeeper-sandbox-shutdown");
        try {
            for (String[] t : toCreate) {
                servers.kafka().createTopic(t[0], Integer.parseInt(t[1]));
            }
            Runtime.getRuntime().addShutdownHook(hook);
            out.println("zk=" + servers.zkConnectString());
            out.println("bootstrap=" + servers.bootstrapServers());
            out.println("sandbox running; press Ctrl-C to stop (data is deleted on exit)");
            out.flush();
            stopped.await();
            return 0;
        } catch (InterruptedException e) {
            return 0; // stopped by whoever runs us in-process (tests)
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException | IllegalArgumentException e) {
                // shutting down already, or never registered
            }
            servers.close();
            out.println("sandbox stopped");
            out.flush();
        }
    }
}
