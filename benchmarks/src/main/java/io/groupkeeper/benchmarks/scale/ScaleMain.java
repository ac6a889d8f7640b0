package io.groupkeeper.benchmarks.scale;

import io.groupkeeper.benchmarks.scale.ScaleHarness.Join;
import io.groupkeeper.benchmarks.scale.ScaleHarness.Result;
import io.groupkeeper.benchmarks.scale.ScaleHarness.Size;
import io.groupkeeper.benchmarks.support.Args;
import io.groupkeeper.benchmarks.support.Fmt;
import io.groupkeeper.benchmarks.support.Json;
import io.groupkeeper.benchmarks.support.Machine;
import io.groupkeeper.benchmarks.support.Stats;
import io.groupkeeper.benchmarks.support.ZkRoundTrip;
import io.groupkeeper.embedded.EmbeddedZooKeeper;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Runs the scale harness and writes {@code scale.json} and {@code scale.csv}.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.groupkeeper.benchmarks.scale.ScaleMain [--quick]
 *      [--sizes 10x100,100x1000,100x10000,1000x10000] [--reps 5] [--members-per-session 100] [--out DIR] [--zk HOST:PORT]
 * </pre>
 */
public final class ScaleMain {

    private ScaleMain() {}

    public static void main(String[] argv) throws Exception {
        Args args = new Args(
                argv, Set.of("quick"), Set.of("sizes", "reps", "members-per-session", "out", "zk", "timeout-ms"));
        boolean quick = args.flag("quick");
        List<Size> sizes =
                parseSizes(args.get("sizes", quick ? "10x100,100x1000" : "10x100,100x1000,100x10000,1000x10000"));
        int reps = args.getInt("reps", quick ? 3 : 5);
        int perSession = args.getInt("members-per-session", 100);
        Path out = args.path("out", "target/bench-results");
        long timeoutMs = args.getInt("timeout-ms", 180_000);
        run(args.has("zk") ? args.get("zk", null) : null, sizes, reps, perSession, timeoutMs, out, System.out);
    }

    public static List<Result> run(
            String zkConnect, List<Size> sizes, int reps, int perSession, long timeoutMs, Path out, PrintStream console)
            throws Exception {
        Map<String, Object> machine = Machine.describe();
        EmbeddedZooKeeper zk = zkConnect == null ? EmbeddedZooKeeper.startDefault() : null;
        try {
            String connect = zkConnect != null ? zkConnect : zk.connectString();
            console.printf(
                    "scale: one member joins N; groupkeeper defaults; ZooKeeper %s; %d cpus, load %.2f%n",
                    connect, Runtime.getRuntime().availableProcessors(), Machine.loadAverage());
            Stats rttBefore = ZkRoundTrip.measure(connect);
            List<Result> results = new ScaleHarness(
                            new ScaleHarness.Config(connect, sizes, reps, perSession, timeoutMs), console)
                    .run();
            Stats rttAfter = ZkRoundTrip.measure(connect);
            double rtt = Math.min(rttBefore.p50(), rttAfter.p50());
            print(results, rtt, console);
            write(results, rttBefore, rttAfter, machine, out);
            console.println("wrote " + out.resolve("scale.json") + " and " + out.resolve("scale.csv"));
            return results;
        } finally {
            if (zk != null) {
                zk.close();
            }
        }
    }

    static List<Size> parseSizes(String text) {
        List<Size> sizes = new ArrayList<>();
        for (String s : text.split(",")) {
            String[] mp = s.trim().split("x");
            sizes.add(new Size(Integer.parseInt(mp[0]), Integer.parseInt(mp[1])));
        }
        return sizes;
    }

    static void print(List<Result> results, double rttMs, PrintStream console) {
        console.println();
        console.printf("raw ZooKeeper setData round trip p50 (same server, same run): %s ms%n", Fmt.ms(rttMs));
        console.println("members x partitions  sessions  joins  total p50/p95/max ms  publish p50  claims p50  in RTTs"
                + "  moved  watchEvents  writes  txns  reads  (medians per join)");
        for (Result r : results) {
            console.printf(
                    Locale.ROOT,
                    "%20s  %8d  %5d  %20s  %11s  %10s  %7s  %5.0f  %11.0f  %6.0f  %4.0f  %5.0f%n",
                    r.size(),
                    r.sessions(),
                    r.joins().size(),
                    r.total().summary(),
                    Fmt.ms(r.publish().p50()),
                    Fmt.ms(r.claims().p50()),
                    Fmt.ratio(r.total().p50() / rttMs),
                    r.median(Join::moved),
                    r.median(Join::watchEvents),
                    r.median(Join::writes),
                    r.median(Join::transactions),
                    r.median(Join::reads));
        }
        int overlaps = results.stream().mapToInt(Result::overlaps).sum();
        console.println("ownership overlaps seen (must be 0): " + overlaps);
    }

    static void write(List<Result> results, Stats rttBefore, Stats rttAfter, Map<String, Object> machine, Path out)
            throws IOException {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("kind", "scale");
        doc.put("machine", machine);
        doc.put("loadAverageAtEnd", Machine.loadAverage());
        doc.put("zkRoundTripMs", Map.of("before", rttBefore, "after", rttAfter));
        doc.put("results", results);
        Json.write(out.resolve("scale.json"), doc);
        StringBuilder csv = new StringBuilder("members,partitions,sessions,join,total_ms,publish_ms,claims_ms,moved,"
                + "watch_events,writes,transactions,reads\n");
        for (Result r : results) {
            for (int i = 0; i < r.joins().size(); i++) {
                Join j = r.joins().get(i);
                csv.append(String.format(
                        Locale.ROOT,
                        "%d,%d,%d,%d,%.3f,%.3f,%.3f,%d,%d,%d,%d,%d%n",
                        r.size().members(),
                        r.size().partitions(),
                        r.sessions(),
                        i + 1,
                        j.totalMs(),
                        j.publishMs(),
                        j.claimsMs(),
                        j.moved(),
                        j.watchEvents(),
                        j.writes(),
                        j.transactions(),
                        j.reads()));
            }
        }
        Files.createDirectories(out);
        Files.writeString(out.resolve("scale.csv"), csv);
    }
}
