package io.groupkeeper.cli;

import io.groupkeeper.cli.kafka.CachedLogBounds;
import io.groupkeeper.cli.kafka.KafkaLogBounds;
import io.groupkeeper.cli.monitor.Monitor;
import io.groupkeeper.zkprotocol.admin.GroupAdmin;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import io.groupkeeper.zookeeper.admin.ZooKeeperAdmin;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code groupkeeper monitor}: a long-running exporter and status page for every group under a namespace. */
@Command(
        name = "monitor",
        mixinStandardHelpOptions = true,
        description = {
            "Watches every group under the namespace until Ctrl-C and serves over HTTP:",
            "  /metrics       Prometheus text: lag (records, seconds), status, owner,",
            "                 generation, members, rebalances, commit rate, monitor_up",
            "  /health        JSON; 200 while ZooKeeper is reachable, else 503",
            "  /              status page of every group",
            "  /group/<name>  members, owners, offsets and a chart of the group's lag",
            "Log ends and record timestamps (with --bootstrap) are cached and refreshed",
            "every --interval. --output is not used."
        },
        footer = {
            "",
            "Example:",
            "  groupkeeper monitor --zk zk:2181 --bootstrap kafka:9092 --port 9404",
            "Grafana dashboard over these metrics: docs/grafana-dashboard.json (docs/metrics.md)."
        })
public final class MonitorCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common;

    @Option(
            names = "--port",
            paramLabel = "PORT",
            defaultValue = "9404",
            description = "HTTP port (default: ${DEFAULT-VALUE}; 0: a free port, printed at start).")
    int port;

    @Option(
            names = "--bind",
            paramLabel = "ADDRESS",
            defaultValue = "0.0.0.0",
            description = "Address to listen on (default: ${DEFAULT-VALUE}).")
    String bind;

    @Option(
            names = "--interval",
            paramLabel = "DURATION",
            defaultValue = "PT10S",
            description = "How often every group is sampled (ISO-8601; default: ${DEFAULT-VALUE}).")
    Duration interval;

    @Option(
            names = "--status-window",
            paramLabel = "DURATION",
            defaultValue = "PT5M",
            description = "The window lag status is judged over (default: ${DEFAULT-VALUE}).")
    Duration statusWindow;

    @Option(
            names = "--max-lag-time",
            paramLabel = "DURATION",
            description = "A partition whose lag in time exceeds this is at least WARN (e.g. PT5M; default: no limit).")
    Duration maxLagTime;

    @Option(
            names = "--history",
            paramLabel = "DURATION",
            defaultValue = "PT1H",
            description = "How much lag history the status page charts per group (default: ${DEFAULT-VALUE}).")
    Duration history;

    @Override
    public Integer call() throws Exception {
        Monitor.Settings settings =
                new Monitor.Settings(bind, port, interval, statusWindow, Optional.ofNullable(maxLagTime), history);
        Logging.quietServers();
        PrintWriter out = spec.commandLine().getOut();
        ZooKeeperStore.Builder sb = ZooKeeperStore.builder()
                .connectString(common.zk)
                .namespace(common.namespace())
                .connectionTimeout(common.timeout());
        if (common.digest != null && !common.digest.isBlank()) {
            sb.digest(common.digest, true);
        }
        Optional<CachedLogBounds> kafka = Optional.empty();
        ZooKeeperStore store = sb.build();
        CountDownLatch stopped = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        boolean served = false;
        try {
            store.start();
            if (common.hasBootstrap()) {
                KafkaLogBounds bounds = common.kafka();
                kafka = Optional.of(new CachedLogBounds(bounds, interval, common.timeout()));
            }
            GroupAdmin admin = ZooKeeperAdmin.builder()
                    .store(store)
                    .logBounds(kafka.orElse(null))
                    .build();
            GroupAdmin zkOnly = ZooKeeperAdmin.on(store);
            try (Monitor monitor = new Monitor(settings, admin, zkOnly, kafka, Clock.systemUTC(), admin.root())) {
                try {
                    monitor.start();
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot listen on " + bind + ":" + port + ": " + e.getMessage(), e);
                }
                Thread hook = new Thread(
                        () -> { // Ctrl-C / SIGTERM: let the main thread close everything first
                            stopped.countDown();
                            try {
                                closed.await(10, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "groupkeeper-monitor-shutdown");
                Runtime.getRuntime().addShutdownHook(hook);
                out.println("monitor serving http://" + bind + ":" + monitor.port() + "/ (metrics: /metrics, health: "
                        + "/health) for namespace " + admin.root() + ", sampling every "
                        + interval.toString().substring(2).toLowerCase() + "; press Ctrl-C to stop");
                out.flush();
                try {
                    stopped.await();
                } catch (InterruptedException e) {
                    // stopped by whoever runs us in-process (tests)
                } finally {
                    try {
                        Runtime.getRuntime().removeShutdownHook(hook);
                    } catch (IllegalStateException | IllegalArgumentException e) {
                        // shutting down already
                    }
                }
            }
            served = true;
            return 0;
        } finally {
            kafka.ifPresent(CachedLogBounds::close);
            store.close();
            if (served) {
                out.println("monitor stopped");
                out.flush();
            }
            closed.countDown();
        }
    }
}
