package io.groupkeeper.benchmarks.rebalance;

import io.groupkeeper.embedded.EmbeddedZooKeeper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The side-by-side's ZooKeeper server: in the harness's own JVM (the default), or in a JVM of its own, optionally
 * pinned to some CPUs with {@code taskset} (issue 19's lever "servers in another JVM": {@code SideBySideMain
 * --zk-jvm [--zk-cpus 0]}). The child runs {@link #main}: it prints {@code zookeeper <connect string>} once the
 * server serves, and stops when its standard input closes, so it never outlives the harness.
 */
abstract class ZooKeeperServerProcess implements AutoCloseable {

    private static final String READY = "zookeeper ";

    abstract String connectString();

    /** How the server runs, for the console and the results' JSON. */
    abstract String describe();

    @Override
    public abstract void close();

    static ZooKeeperServerProcess inProcess() {
        EmbeddedZooKeeper zk = EmbeddedZooKeeper.startDefault();
        return new ZooKeeperServerProcess() {
            @Override
            String connectString() {
                return zk.connectString();
            }

            @Override
            String describe() {
                return "in the harness's JVM";
            }

            @Override
            public void close() {
                zk.close();
            }
        };
    }

    /** Starts {@link #main} in a new JVM of this one's class path, under {@code taskset -c cpus} unless cpus is null. */
    static ZooKeeperServerProcess ownJvm(String cpus) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (cpus != null) {
            cmd.addAll(List.of("taskset", "-c", cpus));
        }
        cmd.addAll(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms512m",
                "-Xmx512m",
                "-cp",
                System.getProperty("java.class.path"),
                ZooKeeperServerProcess.class.getName()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> ready = new CompletableFuture<>();
        Thread drain = new Thread(
                () -> {
                    try {
                        for (String line; (line = out.readLine()) != null; ) {
                            if (!ready.isDone() && line.startsWith(READY)) {
                                ready.complete(line.substring(READY.length()).trim());
                            } // the rest (the server's own log) is dropped: the pipe must not fill up
                        }
                        ready.completeExceptionally(
                                new IOException("the ZooKeeper JVM ended before it served: " + cmd));
                    } catch (IOException e) {
                        ready.completeExceptionally(e);
                    }
                },
                "zk-jvm-output");
        drain.setDaemon(true);
        drain.start();
        String connect;
        try {
            connect = ready.get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            p.destroyForcibly();
            throw new IOException("cannot start ZooKeeper in its own JVM (" + String.join(" ", cmd) + "): " + e, e);
        }
        String where = "in a JVM of its own" + (cpus == null ? "" : " on CPUs " + cpus + " (taskset)");
        return new ZooKeeperServerProcess() {
            @Override
            String connectString() {
                return connect;
            }

            @Override
            String describe() {
                return where;
            }

            @Override
            public void close() {
                try (OutputStream in = p.getOutputStream()) {
                    in.flush(); // closing stdin tells the child to stop
                } catch (IOException e) {
                    // the child is gone already
                }
                try {
                    if (!p.waitFor(20, TimeUnit.SECONDS)) {
                        p.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    p.destroyForcibly();
                }
            }
        };
    }

    /** The child: one in-process server until standard input closes. */
    public static void main(String[] args) throws IOException {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.startDefault()) {
            System.out.println(READY + zk.connectString());
            System.out.flush();
            while (System.in.read() != -1) {
                // nothing is sent: the harness only closes the pipe
            }
        }
    }
}
