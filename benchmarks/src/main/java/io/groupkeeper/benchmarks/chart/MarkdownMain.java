package io.groupkeeper.benchmarks.chart;

import com.fasterxml.jackson.databind.JsonNode;
import io.groupkeeper.benchmarks.support.Args;
import io.groupkeeper.benchmarks.support.Fmt;
import io.groupkeeper.benchmarks.support.Json;
import io.groupkeeper.benchmarks.support.Stats;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Prints the result files of a results directory ({@code sidebyside.json}, {@code scale.json}, {@code jmh.json}) as
 * Markdown tables, for RESULTS.md, so that no figure is copied by hand.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.groupkeeper.benchmarks.chart.MarkdownMain --in DIR</pre>
 */
public final class MarkdownMain {

    private MarkdownMain() {}

    public static void main(String[] argv) {
        Args args = new Args(argv, Set.of(), Set.of("in"));
        System.out.print(render(args.path("in", "target/bench-results")));
    }

    public static String render(Path in) {
        StringBuilder md = new StringBuilder();
        if (Files.exists(in.resolve("sidebyside.json"))) {
            sideBySide(Json.read(in.resolve("sidebyside.json")), md);
        }
        if (Files.exists(in.resolve("scale.json"))) {
            scale(Json.read(in.resolve("scale.json")), md);
        }
        if (Files.exists(in.resolve("jmh.json"))) {
            jmh(Json.read(in.resolve("jmh.json")), md);
        }
        return md.toString();
    }

    /** Each subject's idle coordination traffic next to its scale-out p50 (issue 19): the data of latency-vs-traffic.svg. */
    private static void idleTraffic(JsonNode doc, StringBuilder md) {
        StringBuilder rows = new StringBuilder();
        for (JsonNode s : doc.path("subjects")) {
            JsonNode idle = s.path("idleTraffic");
            if (idle.isMissingNode()) {
                continue;
            }
            StringBuilder kinds = new StringBuilder();
            for (Iterator<Map.Entry<String, JsonNode>> it =
                            idle.path("perMemberPerSecond").fields();
                    it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!e.getKey().equals("requests")) {
                    kinds.append(kinds.length() == 0 ? "" : ", ")
                            .append(e.getKey())
                            .append(' ')
                            .append(String.format(
                                    Locale.ROOT, "%.2f", e.getValue().asDouble()));
                }
            }
            rows.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %.2f | %s |%n",
                    s.path("label").asText(),
                    p50(s.path("scenarios").path("scale-out").path("total")),
                    idle.path("perMemberPerSecond").path("requests").asDouble(),
                    kinds));
        }
        if (rows.length() == 0) {
            return;
        }
        JsonNode first = doc.path("subjects").findValue("idleTraffic");
        md.append(String.format(
                Locale.ROOT,
                "Idle coordination traffic per member (a settled group of %d that only "
                        + "consumes, %.0f s; Kafka: the broker's group-coordinator requests; groupkeeper: packets ZooKeeper "
                        + "received, then the members' own store counters):%n%n",
                first.path("members").asInt(),
                first.path("seconds").asDouble()));
        md.append(
                "| subject | scale-out p50 (ms) | requests/s per member | by kind, per member per second |\n|---|---|---|---|\n");
        md.append(rows).append('\n');
    }

    private static String st(JsonNode s) {
        if (s == null || s.isMissingNode() || s.path("n").asInt() == 0) {
            return "–";
        }
        return Fmt.ms(s.path("p50").asDouble()) + " / " + Fmt.ms(s.path("p95").asDouble()) + " / "
                + Fmt.ms(s.path("max").asDouble());
    }

    private static String p50(JsonNode s) {
        return s == null || s.isMissingNode() || s.path("n").asInt() == 0
                ? "–"
                : Fmt.ms(s.path("p50").asDouble());
    }

    /** A share of all cores as a percentage; "–" for results recorded before the harness measured CPU. */
    private static String busy(JsonNode s) {
        return s == null || s.isMissingNode() || s.path("n").asInt() == 0
                ? "–"
                : String.format(Locale.ROOT, "%.0f %%", 100 * s.path("p50").asDouble());
    }

    private static void sideBySide(JsonNode doc, StringBuilder md) {
        JsonNode m = doc.path("machine");
        double rtt = doc.path("rttMs").asDouble();
        md.append(String.format(
                Locale.ROOT,
                "### Side by side (%s run, %s)%n%n",
                doc.path("mode").asText(),
                m.path("date").asText()));
        md.append(String.format(
                Locale.ROOT,
                "Load average at start / end: %.2f / %.2f. Raw ZooKeeper setData round trip "
                        + "in this run: p50 %s ms (before %s, after %s). Wall time %.0f s. Producer: one record per "
                        + "partition every %d ms (%d records).%n%n",
                m.path("loadAverageAtStart").asDouble(),
                doc.path("loadAverageAtEnd").asDouble(),
                Fmt.ms(rtt),
                Fmt.ms(doc.path("zkRoundTripMs").path("before").path("p50").asDouble()),
                Fmt.ms(doc.path("zkRoundTripMs").path("after").path("p50").asDouble()),
                doc.path("wallSeconds").asDouble(),
                doc.path("producerIntervalMs").asInt(),
                doc.path("producedRecords").asLong()));
        md.append(
                "| subject | scenario | n | total p50 / p95 / max (ms) | owned p50 | fetch p50 | publish p50 | in RTTs (p50) "
                        + "| overlaps | warm-up (ended by) | JIT ms per rep p50 | CPU busy p50 |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (JsonNode s : doc.path("subjects")) {
            if (!"measured".equals(s.path("status").asText())) {
                md.append("| ")
                        .append(s.path("label").asText())
                        .append(" | all | – | **")
                        .append(s.path("status").asText())
                        .append("** | | | | | | | | |\n");
                continue;
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = s.path("scenarios").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode r = e.getValue();
                JsonNode warm = r.path("warmUp");
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %s | %d | %s | %s | %s | %s | %s | %d | %s | %s | %s |%n",
                        s.path("label").asText(),
                        e.getKey(),
                        r.path("total").path("n").asInt(),
                        st(r.path("total")),
                        p50(r.path("owned")),
                        p50(r.path("fetch")),
                        p50(r.path("publish")),
                        Fmt.ratio(r.path("total").path("p50").asDouble() / rtt),
                        r.path("overlaps").asInt(),
                        warm.isMissingNode()
                                ? "–"
                                : warm.path("repetitions").asInt() + " ("
                                        + warm.path("endedBy").asText() + ")",
                        p50(r.path("jit")),
                        busy(r.path("cpuBusy"))));
            }
        }
        md.append('\n');
        idleTraffic(doc, md);
        // groupkeeper's ZooKeeper-only profile
        for (JsonNode s : doc.path("subjects")) {
            if (!"groupkeeper-zk".equals(s.path("system").asText())
                    || !"measured".equals(s.path("status").asText())) {
                continue;
            }
            md.append("groupkeeper ZooKeeper part, p50 of each step in ms from the event (joiner: `connected` = its "
                    + "session is up, `membership` = its member node seen by an outside watcher, `started` = "
                    + "`start()` returned; `publish` = the new generation seen by an outside watcher; `owned` = every "
                    + "partition owned; `handoff` = owned − membership):\n\n");
            md.append(
                    "| scenario | connected | membership | started | publish | owned | handoff | handoff in RTTs |\n");
            md.append("|---|---|---|---|---|---|---|---|\n");
            for (Iterator<Map.Entry<String, JsonNode>> it = s.path("scenarios").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode r = e.getValue();
                JsonNode ph = r.path("phases");
                JsonNode h = r.path("handoff");
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %s | %s | %s | %s | %s | %s | %s |%n",
                        e.getKey(),
                        p50(ph.path("connected")),
                        p50(ph.path("membership")),
                        p50(ph.path("started")),
                        p50(r.path("publish")),
                        p50(r.path("owned")),
                        p50(h),
                        h.isMissingNode() ? "–" : Fmt.ratio(h.path("p50").asDouble() / rtt)));
            }
            md.append('\n');
            md.append("ZooKeeper work per event (p50 over repetitions, all member sessions summed):\n\n");
            md.append("| scenario | watch events | writes | transactions | reads |\n|---|---|---|---|---|\n");
            for (Iterator<Map.Entry<String, JsonNode>> it = s.path("scenarios").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                List<Double> ev = new ArrayList<>();
                List<Double> wr = new ArrayList<>();
                List<Double> tx = new ArrayList<>();
                List<Double> rd = new ArrayList<>();
                for (JsonNode rep : e.getValue().path("reps")) {
                    JsonNode zk = rep.path("zk");
                    if (!zk.isMissingNode() && !zk.isNull()) {
                        ev.add(zk.path("watchEvents").asDouble());
                        wr.add(zk.path("writes").asDouble());
                        tx.add(zk.path("transactions").asDouble());
                        rd.add(zk.path("reads").asDouble());
                    }
                }
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %.0f | %.0f | %.0f | %.0f |%n",
                        e.getKey(),
                        Stats.of(ev).p50(),
                        Stats.of(wr).p50(),
                        Stats.of(tx).p50(),
                        Stats.of(rd).p50()));
            }
            md.append('\n');
        }
        // groupkeeper over Kafka: where the time goes (ZooKeeper part, Kafka part, waits)
        for (JsonNode s : doc.path("subjects")) {
            if (!"groupkeeper".equals(s.path("system").asText())
                    || !"measured".equals(s.path("status").asText())) {
                continue;
            }
            md.append("groupkeeper over Kafka, split (p50 over repetitions, ms from the event; (c) from expiry "
                    + "detection). `started` = the joiner's `CoordinatedConsumer.start()` returned (session, "
                    + "`KafkaConsumer` created, member registered); `publish` = new generation seen from outside; "
                    + "**ZooKeeper part** = `zk-claimed`, the last member's ZooKeeper step that gained partitions "
                    + "completed (revocations, fenced releases and claims done; includes the old owners' final commits "
                    + "made on their polling threads); **Kafka part** = the rest: `owned − zk-claimed` (hand-over to the "
                    + "polling thread, `assign`, `seek`, ListOffsets when nothing was committed; negative when the "
                    + "polling thread got there before the ZooKeeper step returned) plus `fetch` (until every owner "
                    + "delivered a record); deliberate waits: none (settle delay 0, no sleeps; the poll loop is "
                    + "`poll(100 ms)` and is woken on every change):\n\n");
            md.append(
                    "| scenario | n | total p50 | connected | membership | started | publish | ZooKeeper part (zk-claimed) "
                            + "| owned | owned − zk-claimed | fetch | ZooKeeper share of total | zk-claimed in RTTs |\n");
            md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
            for (Iterator<Map.Entry<String, JsonNode>> it = s.path("scenarios").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode r = e.getValue();
                JsonNode ph = r.path("phases");
                List<Double> kafkaAssign = new ArrayList<>();
                List<Double> share = new ArrayList<>();
                for (JsonNode rep : r.path("reps")) {
                    JsonNode zc = rep.path("phasesMs").path("zk-claimed");
                    if (zc.isNumber()) {
                        kafkaAssign.add(rep.path("ownedMs").asDouble() - zc.asDouble());
                        share.add(Math.min(zc.asDouble(), rep.path("ownedMs").asDouble())
                                / rep.path("totalMs").asDouble());
                    }
                }
                Stats ka = Stats.of(kafkaAssign);
                Stats sh = Stats.of(share);
                JsonNode zc = ph.path("zk-claimed");
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                        e.getKey(),
                        r.path("total").path("n").asInt(),
                        p50(r.path("total")),
                        p50(ph.path("connected")),
                        p50(ph.path("membership")),
                        p50(ph.path("started")),
                        p50(r.path("publish")),
                        p50(zc),
                        p50(r.path("owned")),
                        ka.isEmpty() ? "–" : Fmt.ms(ka.p50()),
                        p50(r.path("fetch")),
                        sh.isEmpty() ? "–" : String.format(Locale.ROOT, "%.0f %%", 100 * sh.p50()),
                        zc.isMissingNode() || zc.path("n").asInt() == 0
                                ? "–"
                                : Fmt.ratio(zc.path("p50").asDouble() / rtt)));
            }
            md.append('\n');
        }
        JsonNode a = doc.path("summary").path("scale-out");
        if (!a.isMissingNode()) {
            md.append(String.format(
                    Locale.ROOT,
                    "Scale-out p50: best Kafka setting %s = %s ms; groupkeeper over Kafka: %s; "
                            + "Kafka-best / groupkeeper = %s; groupkeeper ZooKeeper part: %s ms (%s raw ZooKeeper write round "
                            + "trips; Kafka-best / it = %s).%n%n",
                    a.path("kafkaBestKey").asText("–"),
                    num(a.path("kafkaBestP50Ms")),
                    a.path("groupkeeperP50Ms").isNull()
                            ? "pending (needs kafka-adapter)"
                            : num(a.path("groupkeeperP50Ms")) + " ms",
                    num(a.path("ratioKafkaBestToGroupkeeper")),
                    num(a.path("groupkeeperZkP50Ms")),
                    num(a.path("groupkeeperZkInRtts")),
                    num(a.path("ratioKafkaBestToGroupkeeperZk"))));
        }
    }

    private static String num(JsonNode n) {
        return n == null || n.isMissingNode() || n.isNull() ? "–" : Fmt.ms(n.asDouble());
    }

    private static void scale(JsonNode doc, StringBuilder md) {
        double rtt = Math.min(
                doc.path("zkRoundTripMs").path("before").path("p50").asDouble(),
                doc.path("zkRoundTripMs").path("after").path("p50").asDouble());
        md.append(String.format(
                Locale.ROOT,
                "### Scale: one member joins N (%s)%n%n",
                doc.path("machine").path("date").asText()));
        md.append(String.format(
                Locale.ROOT,
                "Load average at start / end: %.2f / %.2f. Raw ZooKeeper setData round trip " + "p50: %s ms.%n%n",
                doc.path("machine").path("loadAverageAtStart").asDouble(),
                doc.path("loadAverageAtEnd").asDouble(),
                Fmt.ms(rtt)));
        md.append(
                "| members × partitions | sessions | setup (ms) | joins | total p50 / p95 / max (ms) | publish p50 | claims p50 "
                        + "| in RTTs | moved | watch events | writes | transactions | reads |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (JsonNode r : doc.path("results")) {
            List<Double> total = new ArrayList<>();
            List<Double> pub = new ArrayList<>();
            List<Double> claims = new ArrayList<>();
            List<Double> moved = new ArrayList<>();
            List<Double> ev = new ArrayList<>();
            List<Double> wr = new ArrayList<>();
            List<Double> tx = new ArrayList<>();
            List<Double> rd = new ArrayList<>();
            for (JsonNode j : r.path("joins")) {
                total.add(j.path("totalMs").asDouble());
                pub.add(j.path("publishMs").asDouble());
                claims.add(j.path("claimsMs").asDouble());
                moved.add(j.path("moved").asDouble());
                ev.add(j.path("watchEvents").asDouble());
                wr.add(j.path("writes").asDouble());
                tx.add(j.path("transactions").asDouble());
                rd.add(j.path("reads").asDouble());
            }
            Stats t = Stats.of(total);
            md.append(String.format(
                    Locale.ROOT,
                    "| %d × %d | %d | %.0f | %d | %s | %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f |%n",
                    r.path("size").path("members").asInt(),
                    r.path("size").path("partitions").asInt(),
                    r.path("sessions").asInt(),
                    r.path("setupMs").asDouble(),
                    t.n(),
                    t.summary(),
                    Fmt.ms(Stats.of(pub).p50()),
                    Fmt.ms(Stats.of(claims).p50()),
                    Fmt.ratio(t.p50() / rtt),
                    Stats.of(moved).p50(),
                    Stats.of(ev).p50(),
                    Stats.of(wr).p50(),
                    Stats.of(tx).p50(),
                    Stats.of(rd).p50()));
        }
        md.append('\n');
    }

    private static void jmh(JsonNode doc, StringBuilder md) {
        md.append(
                "### JMH\n\n| benchmark | params | mode | score | error | unit | secondary |\n|---|---|---|---|---|---|---|\n");
        for (JsonNode b : doc) {
            String name = b.path("benchmark").asText().replace("io.groupkeeper.benchmarks.jmh.", "");
            StringBuilder params = new StringBuilder();
            b.path("params")
                    .fields()
                    .forEachRemaining(e -> params.append(params.length() == 0 ? "" : ", ")
                            .append(e.getKey())
                            .append('=')
                            .append(e.getValue().asText()));
            JsonNode pm = b.path("primaryMetric");
            StringBuilder secondary = new StringBuilder();
            b.path("secondaryMetrics").fields().forEachRemaining(e -> {
                if (e.getKey().equals("offsets")) {
                    secondary
                            .append("offsets: ")
                            .append(num3(e.getValue().path("score").asDouble()))
                            .append(' ')
                            .append(e.getValue().path("scoreUnit").asText());
                }
            });
            JsonNode pct = pm.path("scorePercentiles");
            if (b.path("mode").asText().equals("sample") && !pct.isMissingNode()) {
                secondary.append(String.format(
                        Locale.ROOT,
                        "p50 %s, p95 %s, p99 %s",
                        num3(pct.path("50.0").asDouble()),
                        num3(pct.path("95.0").asDouble()),
                        num3(pct.path("99.0").asDouble())));
            }
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %s | %s | %s | %s | %s |%n",
                    name,
                    params,
                    b.path("mode").asText(),
                    num3(pm.path("score").asDouble()),
                    num3(pm.path("scoreError").asDouble()),
                    pm.path("scoreUnit").asText(),
                    secondary));
        }
        md.append('\n');
    }

    private static String num3(double d) {
        if (Double.isNaN(d)) {
            return "–";
        }
        if (Math.abs(d) >= 100) {
            return String.format(Locale.ROOT, "%,.0f", d);
        }
        return String.format(Locale.ROOT, "%.3g", d);
    }
}
