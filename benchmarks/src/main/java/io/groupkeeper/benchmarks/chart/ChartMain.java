package io.groupkeeper.benchmarks.chart;

import com.fasterxml.jackson.databind.JsonNode;
import io.groupkeeper.benchmarks.support.Args;
import io.groupkeeper.benchmarks.support.Json;
import io.groupkeeper.benchmarks.support.Stats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.DoubleUnaryOperator;

/**
 * Draws {@code rebalance-latency.svg} from the harnesses' result files ({@code sidebyside.json},
 * {@code scale.json}) in a results directory: rebalance latency by system and scenario (p50 bar, p95 whisker,
 * log scale), and groupkeeper's join latency and ZooKeeper cost by group size; next to it
 * {@code latency-vs-traffic.svg} ({@link TrafficChart}). Plain SVG written by hand, no
 * plotting library; either input may be missing.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.groupkeeper.benchmarks.chart.ChartMain --in DIR [--out FILE]</pre>
 */
public final class ChartMain {

    static final String[] COLORS = {"#1b9e77", "#66a61e", "#d95f02", "#e6ab02", "#7570b3", "#e7298a", "#666666"};
    private static final int WIDTH = 1100;

    record Bar(String label, double p50, double p95, String color, String note) {}

    record Group(String title, List<Bar> bars) {}

    private ChartMain() {}

    public static void main(String[] argv) throws IOException {
        Args args = new Args(argv, Set.of(), Set.of("in", "out"));
        Path in = args.path("in", "target/bench-results");
        Path out = args.has("out") ? args.path("out", null) : in.resolve("rebalance-latency.svg");
        Files.writeString(out, render(in));
        System.out.println("wrote " + out);
        Path sbs = in.resolve("sidebyside.json");
        if (Files.exists(sbs)) {
            Path traffic = out.resolveSibling("latency-vs-traffic.svg");
            Files.writeString(traffic, TrafficChart.render(Json.read(sbs)));
            System.out.println("wrote " + traffic);
        }
    }

    public static String render(Path in) {
        StringBuilder svg = new StringBuilder();
        int y = 10;
        StringBuilder body = new StringBuilder();
        Path sbs = in.resolve("sidebyside.json");
        if (Files.exists(sbs)) {
            y = sideBySide(Json.read(sbs), body, y);
        }
        Path scale = in.resolve("scale.json");
        if (Files.exists(scale)) {
            y = scale(Json.read(scale), body, y + 20);
        }
        svg.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                        + "font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\">%n",
                WIDTH,
                y + 10,
                WIDTH,
                y + 10));
        svg.append(String.format("<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, y + 10));
        svg.append(body);
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static int sideBySide(JsonNode doc, StringBuilder svg, int y) {
        List<Group> groups = new ArrayList<>();
        List<String> subjects = new ArrayList<>();
        for (JsonNode s : doc.path("subjects")) {
            subjects.add(s.path("label").asText());
        }
        for (String scenario : List.of("scale-out", "leave", "crash", "cold-start")) {
            List<Bar> bars = new ArrayList<>();
            int i = 0;
            for (JsonNode s : doc.path("subjects")) {
                String color = COLORS[i++ % COLORS.length];
                JsonNode total = s.path("scenarios").path(scenario).path("total");
                if (!"measured".equals(s.path("status").asText())) {
                    if (doc.path("scenarios").toString().contains(scenario)) {
                        bars.add(new Bar(
                                s.path("label").asText(),
                                Double.NaN,
                                Double.NaN,
                                color,
                                s.path("status").asText()));
                    }
                    continue;
                }
                if (total.isMissingNode() || total.path("n").asInt() == 0) {
                    continue;
                }
                bars.add(new Bar(
                        s.path("label").asText(),
                        total.path("p50").asDouble(),
                        total.path("p95").asDouble(),
                        color,
                        "n=" + total.path("n").asInt()));
            }
            if (!bars.isEmpty()) {
                String title = switch (scenario) {
                    case "scale-out" -> "(a) scale-out: a 4th member joins 3, 12 partitions";
                    case "leave" -> "(b) graceful leave: 4 to 3";
                    case "crash" -> "(c) crash: from session-expiry detection";
                    default -> "(d) cold start of 4";
                };
                groups.add(new Group(title, bars));
            }
        }
        if (groups.isEmpty()) {
            return y;
        }
        double rtt = doc.path("rttMs").asDouble(Double.NaN);
        String sub = String.format(
                Locale.ROOT,
                "%s run, %s, %d cpus; p50 bar, p95 whisker, log scale; "
                        + "dashed line: raw ZooKeeper write round trip (%.2f ms)",
                doc.path("mode").asText(),
                doc.path("machine").path("date").asText().substring(0, 10),
                doc.path("machine").path("cpus").asInt(),
                rtt);
        return logBars(
                svg,
                y,
                "Rebalance latency by system (ms until every partition is owned once and fetched)",
                sub,
                groups,
                rtt);
    }

    private static int scale(JsonNode doc, StringBuilder svg, int y) {
        List<Bar> bars = new ArrayList<>();
        List<String[]> notes = new ArrayList<>();
        for (JsonNode r : doc.path("results")) {
            JsonNode size = r.path("size");
            List<Double> totals = new ArrayList<>();
            List<Double> events = new ArrayList<>();
            List<Double> writes = new ArrayList<>();
            for (JsonNode j : r.path("joins")) {
                totals.add(j.path("totalMs").asDouble());
                events.add(j.path("watchEvents").asDouble());
                writes.add(j.path("writes").asDouble());
            }
            if (totals.isEmpty()) {
                continue;
            }
            var st = Stats.of(totals);
            String label = size.path("members").asInt() + " members x "
                    + size.path("partitions").asInt() + " partitions";
            bars.add(new Bar(
                    label,
                    st.p50(),
                    st.p95(),
                    COLORS[0],
                    String.format(
                            Locale.ROOT,
                            "watch events %.0f, writes %.0f per join (p50)",
                            Stats.of(events).p50(),
                            Stats.of(writes).p50())));
        }
        if (bars.isEmpty()) {
            return y;
        }
        double rtt = Math.min(
                doc.path("zkRoundTripMs").path("before").path("p50").asDouble(),
                doc.path("zkRoundTripMs").path("after").path("p50").asDouble());
        return logBars(
                svg,
                y,
                "groupkeeper: one member joins a group of N (ZooKeeper only, default settings)",
                String.format(
                        Locale.ROOT,
                        "%s, %d cpus; p50 bar, p95 whisker, log scale; members share sessions",
                        doc.path("machine").path("date").asText().substring(0, 10),
                        doc.path("machine").path("cpus").asInt()),
                List.of(new Group("join latency by group size", bars)),
                rtt);
    }

    /** Horizontal bars on a log axis, grouped; returns the next free y. */
    private static int logBars(
            StringBuilder svg, int y, String title, String subtitle, List<Group> groups, double rtt) {
        int left = 390;
        int right = WIDTH - 330;
        double min = Double.MAX_VALUE;
        double max = 0;
        for (Group g : groups) {
            for (Bar b : g.bars()) {
                if (!Double.isNaN(b.p50())) {
                    min = Math.min(min, b.p50());
                    max = Math.max(max, Math.max(b.p50(), b.p95()));
                }
            }
        }
        if (!Double.isNaN(rtt)) {
            min = Math.min(min, rtt);
        }
        if (max == 0) {
            min = 1;
            max = 10;
        }
        double lo = Math.pow(10, Math.floor(Math.log10(min)));
        double hi = Math.pow(10, Math.ceil(Math.log10(max)));
        DoubleUnaryOperator x =
                v -> left + (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) * (right - left);

        svg.append(text(10, y + 16, title, "font-size=\"15\" font-weight=\"bold\""));
        svg.append(text(10, y + 34, subtitle, "fill=\"#555\""));
        y += 50;
        int top = y;
        for (Group g : groups) {
            svg.append(text(10, y + 14, g.title(), "font-weight=\"bold\""));
            y += 20;
            for (Bar b : g.bars()) {
                svg.append(text(left - 8, y + 12, shorten(b.label(), 60), "text-anchor=\"end\""));
                if (Double.isNaN(b.p50())) {
                    svg.append(text(left + 4, y + 12, b.note(), "fill=\"#999\" font-style=\"italic\""));
                } else {
                    double x50 = x.applyAsDouble(Math.max(b.p50(), lo));
                    svg.append(String.format(
                            Locale.ROOT,
                            "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"14\" fill=\"%s\"/>%n",
                            left,
                            y + 1,
                            Math.max(1, x50 - left),
                            b.color()));
                    if (!Double.isNaN(b.p95()) && b.p95() > b.p50()) {
                        double x95 = x.applyAsDouble(b.p95());
                        svg.append(String.format(
                                Locale.ROOT,
                                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                                        + "stroke=\"#333\"/><line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>%n",
                                x50,
                                y + 8,
                                x95,
                                y + 8,
                                x95,
                                y + 3,
                                x95,
                                y + 13));
                    }
                    svg.append(text(
                            (int) Math.max(
                                            x50,
                                            Double.isNaN(b.p95()) ? x50 : x.applyAsDouble(Math.max(b.p95(), b.p50())))
                                    + 6,
                            y + 12,
                            formatMs(b.p50()) + " ms  (" + b.note() + ")",
                            "fill=\"#333\""));
                }
                y += 18;
            }
            y += 6;
        }
        // axis
        svg.append(
                String.format("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>%n", left, y, right, y));
        for (double t = lo; t <= hi * 1.0001; t *= 10) {
            double tx = x.applyAsDouble(t);
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>%n",
                    tx,
                    top,
                    tx,
                    y));
            svg.append(text(
                    (int) tx,
                    y + 14,
                    t >= 1000 ? formatMs(t / 1000) + " s" : formatMs(t) + " ms",
                    "text-anchor=\"middle\" fill=\"#555\""));
        }
        if (!Double.isNaN(rtt) && rtt >= lo) {
            double rx = x.applyAsDouble(rtt);
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c00\" "
                            + "stroke-dasharray=\"4,3\"/>%n",
                    rx,
                    top,
                    rx,
                    y));
            svg.append(text((int) rx + 3, y - 4, "ZooKeeper write RTT", "fill=\"#c00\" font-size=\"10\""));
        }
        return y + 24;
    }

    static String formatMs(double v) {
        if (v >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (v >= 1) {
            return String.format(Locale.ROOT, "%.1f", v).replace(".0", "");
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }

    private static String shorten(String s, int n) {
        return s.length() <= n ? s : s.substring(0, n - 1) + "…";
    }

    static String text(int x, int y, String s, String attrs) {
        return String.format("<text x=\"%d\" y=\"%d\" %s>%s</text>%n", x, y, attrs, escape(s));
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
