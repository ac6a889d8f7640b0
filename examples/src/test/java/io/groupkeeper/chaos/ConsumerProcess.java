package io.groupkeeper.chaos;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.groupkeeper.chaos.ChaosLedger.End;
import io.groupkeeper.chaos.ChaosLedger.Ownership;
import io.groupkeeper.chaos.ChaosLedger.Processed;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * A member of a chaos run as its own JVM: the examples' {@code consume} command with {@code --events}, whose stdout
 * JSON lines (records with their processing instant, and assigned/revoked/lost events) are parsed into the ledger.
 * {@link #crash} is {@code SIGKILL} ({@link Process#destroyForcibly()}: no shutdown hook, no final commit, the session
 * times out on the server — an operator's {@code kill -9} or the OOM killer); {@link #leave} is {@code SIGTERM}
 * ({@link Process#destroy()}: the command's shutdown hook leaves gracefully). A record counts as processed when its
 * line reached the pipe: the command flushes every batch before it polls (and so commits) again, so a record lost in
 * the child's buffer by a kill was not committed either.
 */
final class ConsumerProcess implements ChaosConsumer {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String group;
    private final ChaosLedger ledger;
    private final Process process;
    private final Path stderr;
    private final Path stdout;
    private final Supplier<Optional<String>> leader;
    private final Map<Integer, Long> openSince = new ConcurrentHashMap<>();
    private final CountDownLatch eof = new CountDownLatch(1);
    private final AtomicLong badLines = new AtomicLong();
    private final Thread reader;
    private volatile String name;
    private volatile boolean stopping;
    /** When the process exited (noticed by the JDK's reaper within milliseconds). */
    private final java.util.concurrent.CompletableFuture<Long> exited;

    private volatile RuntimeException readerFailure;

    private ConsumerProcess(
            String group,
            ChaosLedger ledger,
            Process process,
            Path stderr,
            Path stdout,
            Supplier<Optional<String>> leader) {
        this.group = group;
        this.ledger = ledger;
        this.process = process;
        this.stderr = stderr;
        this.stdout = stdout;
        this.leader = leader;
        this.reader = new Thread(this::read, "chaos-reader-" + process.pid());
        this.reader.setDaemon(true);
        this.exited = process.onExit().thenApply(x -> System.currentTimeMillis());
    }

    /** Launches {@code java ... io.groupkeeper.examples.Main consume ... --events} and waits until it has joined. */
    static ConsumerProcess start(ChaosRun run, String group, String label, Path logDir) throws IOException {
        Files.createDirectories(logDir);
        Path err = logDir.resolve(label + ".stderr");
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1"));
        String extra = System.getProperty("chaos.child.jvmArgs", "").trim(); // e.g. a logback configuration
        if (!extra.isEmpty()) {
            cmd.addAll(Arrays.asList(extra.split("\\s+")));
        }
        cmd.addAll(List.of(
                "-cp",
                classpath(),
                "io.groupkeeper.examples.Main",
                "consume",
                "--zk",
                run.zkConnect(),
                "--bootstrap",
                run.bootstrap(),
                "--group",
                group,
                "--topic",
                ChaosRun.TOPIC,
                "--start",
                "earliest",
                "--events",
                "--session-timeout-ms",
                Long.toString(ChaosRun.SESSION_TIMEOUT.toMillis()),
                "--commit-interval-ms",
                Long.toString(ChaosRun.COMMIT_INTERVAL.toMillis()),
                "-X",
                "max.poll.records=" + ChaosRun.MAX_POLL_RECORDS,
                "-X",
                "fetch.max.wait.ms=100"));
        // stdout goes to a file that is read as it grows: a pipe read while the process exits lost its last lines
        // (the JDK drains a dead process's pipe into a buffer of its own), and those are the revocations of a
        // graceful leave.
        Path out = logDir.resolve(label + ".stdout");
        Process p = new ProcessBuilder(cmd)
                .redirectError(err.toFile())
                .redirectOutput(out.toFile())
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                .start();
        p.getOutputStream().close();
        ConsumerProcess c = new ConsumerProcess(
                group,
                run.ledger(),
                p,
                err,
                out,
                () -> run.groupAdmin().describe(group).leader());
        c.reader.start();
        try {
            await().atMost(Duration.ofSeconds(90)).until(() -> c.name != null || !p.isAlive());
        } catch (RuntimeException e) {
            p.destroyForcibly(); // a process that never joined must not outlive the failed test
            throw e;
        }
        if (c.name == null) {
            throw new IllegalStateException(
                    "consume process for " + group + " exited with " + p.exitValue() + ": " + c.stderrTail());
        }
        return c;
    }

    /** The test's runtime classpath (surefire's, without test classes: the child logs by the examples' logback.xml). */
    static String classpath() {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        return Arrays.stream(cp.split(File.pathSeparator))
                .filter(e -> !e.endsWith("test-classes") && !e.endsWith("test-classes/"))
                .collect(Collectors.joining(File.pathSeparator));
    }

    /** Follows the stdout file as it grows, line by line, until the process has exited and everything is read. */
    private void read() {
        try (java.io.Reader in = Files.newBufferedReader(stdout, StandardCharsets.UTF_8)) {
            StringBuilder pending = new StringBuilder();
            char[] buf = new char[8192];
            while (true) {
                boolean exited = !process.isAlive(); // checked before reading: what it wrote is in the file by now
                int n = in.read(buf);
                if (n > 0) {
                    pending.append(buf, 0, n);
                    for (int nl; (nl = pending.indexOf("\n")) >= 0; ) {
                        take(pending.substring(0, nl));
                        pending.delete(0, nl + 1);
                    }
                } else if (exited) {
                    if (pending.length() > 0) {
                        badLines.incrementAndGet(); // a line cut short by SIGKILL
                    }
                    return;
                } else {
                    java.util.concurrent.locks.LockSupport.parkNanos(20_000_000L); // the file grows: read again soon
                }
            }
        } catch (IOException e) {
            readerFailure = new java.io.UncheckedIOException(e);
        } catch (RuntimeException e) {
            readerFailure = e; // surfaced by failure(): a line this reader could not take
        } finally {
            eof.countDown();
        }
    }

    private void take(String line) {
        JsonNode n;
        try {
            n = JSON.readTree(line);
        } catch (IOException e) {
            badLines.incrementAndGet();
            return;
        }
        if (n == null || !n.isObject()) {
            badLines.incrementAndGet();
        } else if (n.has("event")) {
            onEvent(n);
        } else if (n.has("offset") && n.has("at")) {
            long at = n.get("at").asLong();
            JsonNode key = n.get("key");
            ledger.processed(new Processed(
                    n.get("group").asText(),
                    n.get("partition").asInt(),
                    n.get("offset").asLong(),
                    n.get("member").asText(),
                    at,
                    at,
                    key == null || key.isNull() ? null : key.asText()));
        } else {
            badLines.incrementAndGet();
        }
    }

    private void onEvent(JsonNode n) {
        String event = n.get("event").asText();
        long at = n.get("at").asLong();
        String member = n.get("member").asText();
        List<Integer> partitions = new ArrayList<>();
        n.get("partitions").forEach(p -> partitions.add(p.get("partition").asInt()));
        switch (event) {
            case "started" -> name = member;
            case "assigned" -> partitions.forEach(p -> openSince.putIfAbsent(p, at));
            case "revoked", "lost" ->
                partitions.forEach(p -> {
                    Long from = openSince.remove(p);
                    if (from != null) {
                        ledger.ownership(new Ownership(
                                group, p, member, from, at, event.equals("lost") ? End.LOST : End.REVOKED));
                    }
                });
            default -> badLines.incrementAndGet();
        }
    }

    @Override
    public String group() {
        return group;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void leave() {
        stopping = true;
        process.destroy(); // SIGTERM: the command's shutdown hook wakes the consumer, which closes gracefully
    }

    @Override
    public long crash(boolean abandonSession) {
        stopping = true;
        process.destroyForcibly(); // SIGKILL
        awaitExit(Duration.ofSeconds(30));
        long at = exited.join();
        openSince.forEach((p, from) -> ledger.ownership(new Ownership(group, p, name, from, at, End.CRASHED)));
        openSince.clear();
        return at;
    }

    private void awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(name + " did not exit within " + timeout);
            }
            exited.join();
            if (!eof.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(name + ": stdout not closed within " + timeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void cleanUp() {
        // nothing left in this JVM
    }

    @Override
    public void destroy() {
        stopping = true;
        process.destroyForcibly();
    }

    @Override
    public void partition(long millis) {
        throw new UnsupportedOperationException("partitions need the member in this JVM");
    }

    @Override
    public boolean isPartitioned() {
        return false;
    }

    @Override
    public void stall(long millis) {
        throw new UnsupportedOperationException("stalls need the member in this JVM");
    }

    @Override
    public boolean supportsSessionFaults() {
        return false;
    }

    @Override
    public boolean isLeader() {
        return process.isAlive()
                && name != null
                && leader.get().map(name::equals).orElse(false);
    }

    @Override
    public Optional<Integer> zkServerPort() {
        return Optional.empty();
    }

    /** Waits for a graceful leave: the process exits after its final commit, and every line is read. */
    @Override
    public void awaitDone(Duration timeout) {
        awaitExit(timeout);
        if (!openSince.isEmpty()) {
            // close() prints "revoked" for everything it owned; anything left open ended with the process
            long at = exited.join();
            openSince.forEach((p, from) -> ledger.ownership(new Ownership(group, p, name, from, at, End.CRASHED)));
            openSince.clear();
        }
    }

    @Override
    public Optional<String> failure() {
        if (readerFailure != null) {
            return Optional.of(name + ": reading its stdout failed: " + readerFailure);
        }
        if (!stopping && !process.isAlive()) {
            return Optional.of(name + " (pid " + process.pid() + ") exited by itself with " + process.exitValue() + ": "
                    + stderrTail());
        }
        return Optional.empty();
    }

    long badLines() {
        return badLines.get();
    }

    private String stderrTail() {
        try {
            List<String> lines = Files.readAllLines(stderr);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no stderr: " + e + ")";
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ")";
    }
}
