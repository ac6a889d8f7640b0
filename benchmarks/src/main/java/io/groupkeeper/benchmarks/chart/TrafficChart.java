package io.groupkeeper.benchmarks.chart;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleUnaryOperator;

/**
 * The second chart of issue 19 item 2, {@code latency-vs-traffic.svg}: scale-out p50 (y) against the idle
 * coordination traffic per member (x, requests/s), both log scales, from one {@code sidebyside.json}. One curve per
 * system across its settings (Kafka classic and KIP-848 over their heartbeat intervals; groupkeeper over Kafka and
 * groupkeeper's ZooKeeper part at their defaults), each point labelled with its setting.
 */
public final class TrafficChart {

    private static final int W = 900;
    private static final int H = 560;
    private static final int LEFT = 80;
    private static final int RIGHT = W - 40;
    private static final int TOP = 70;
    private static final int BOTTOM = H - 60;

    record Point(String label, double requestsPerSecond, double p50) {}

    private TrafficChart() {}

    /** The curve a subject belongs to. */
    static String curve(String key) {
        if (key.startsWith("kafka-classic")) {
            return "Kafka classic";
        }
        if (key.startsWith("kafka-consumer")) {
            return "Kafka consumer (KIP-848)";
        }
        return key.equals("groupkeeper-zk") ? "groupkeeper, ZooKeeper part only" : "groupkeeper over Kafka";
    }

    /** Points by curve, from the subjects that have both an idle traffic and a scale-out figure. */
    static Map<String, List<Point>> points(JsonNode doc) {
        Map<String, List<Point>> curves = new LinkedHashMap<>();
        for (JsonNode s : doc.path("subjects")) {
            double rate = s.path("idleTraffic")
                    .path("perMemberPerSecond")
                    .path("requests")
                    .asDouble(Double.NaN);
            double p50 = s.path("scenarios")
                    .path("scale-out")
                    .path("total")
                    .path("p50")
                    .asDouble(Double.NaN);
            if (Double.isNaN(rate) || Double.isNaN(p50)) {
                continue;
            }
            String key = s.path("key").asText();
            String label = key.startsWith("kafka-") ? key.substring(key.lastIndexOf('-') + 1) : "defaults";
            curves.computeIfAbsent(curve(key), k -> new ArrayList<>()).add(new Point(label, Math.max(rate, 0.01), p50));
        }
        curves.values().forEach(l -> l.sort(Comparator.comparingDouble(Point::requestsPerSecond)));
        return curves;
    }

    public static String render(JsonNode doc) {
        Map<String, List<Point>> curves = points(doc);
        StringBuilder svg = new StringBuilder(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                        + "font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\">%n"
                        + "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n",
                W,
                H,
                W,
                H,
                W,
                H));
        svg.append(ChartMain.text(
                10,
                20,
                "Rebalance latency against idle coordination traffic (scale-out: a 4th member joins 3)",
                "font-size=\"15\" font-weight=\"bold\""));
        String date = doc.path("machine").path("date").asText("");
        svg.append(ChartMain.text(
                10,
                38,
                String.format(
                        Locale.ROOT,
                        "%s run, %s; y: scale-out p50 (ms), x: requests/s per "
                                + "member while the settled group idles; log scales",
                        doc.path("mode").asText(),
                        date.substring(0, Math.min(10, date.length()))),
                "fill=\"#555\" font-size=\"11\""));
        svg.append(ChartMain.text(
                10,
                54,
                "Kafka: group-coordinator requests at the broker (heartbeats, commits, ...); "
                        + "groupkeeper: packets ZooKeeper received (pings, reads, commits)",
                "fill=\"#555\" font-size=\"11\""));
        double xMin = Double.MAX_VALUE;
        double xMax = 0;
        double yMin = Double.MAX_VALUE;
        double yMax = 0;
        for (List<Point> l : curves.values()) {
            for (Point p : l) {
                xMin = Math.min(xMin, p.requestsPerSecond());
                xMax = Math.max(xMax, p.requestsPerSecond());
                yMin = Math.min(yMin, p.p50());
                yMax = Math.max(yMax, p.p50());
            }
        }
        if (curves.isEmpty()) {
            return svg.append(ChartMain.text(LEFT, TOP + 20, "no subject with idle traffic in this run", ""))
                    .append("</svg>\n")
                    .toString();
        }
        double x0 = Math.pow(10, Math.floor(Math.log10(xMin)));
        double x1 = Math.pow(10, Math.ceil(Math.log10(xMax * 1.0001)));
        double y0 = Math.pow(10, Math.floor(Math.log10(yMin)));
        double y1 = Math.pow(10, Math.ceil(Math.log10(yMax * 1.0001)));
        DoubleUnaryOperator x =
                v -> LEFT + (Math.log10(v) - Math.log10(x0)) / (Math.log10(x1) - Math.log10(x0)) * (RIGHT - LEFT);
        DoubleUnaryOperator y =
                v -> BOTTOM - (Math.log10(v) - Math.log10(y0)) / (Math.log10(y1) - Math.log10(y0)) * (BOTTOM - TOP);
        for (double t = x0; t <= x1 * 1.0001; t *= 10) {
            double tx = x.applyAsDouble(t);
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>%n",
                    tx,
                    TOP,
                    tx,
                    BOTTOM));
            svg.append(ChartMain.text(
                    (int) tx, BOTTOM + 16, ChartMain.formatMs(t), "text-anchor=\"middle\" fill=\"#555\""));
        }
        for (double t = y0; t <= y1 * 1.0001; t *= 10) {
            double ty = y.applyAsDouble(t);
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n",
                    LEFT,
                    ty,
                    RIGHT,
                    ty));
            svg.append(ChartMain.text(
                    LEFT - 6, (int) ty + 4, ChartMain.formatMs(t) + " ms", "text-anchor=\"end\" fill=\"#555\""));
        }
        svg.append(ChartMain.text(
                (LEFT + RIGHT) / 2,
                BOTTOM + 36,
                "idle coordination requests per member per second",
                "text-anchor=\"middle\""));
        int i = 0;
        int legendY = TOP + 4;
        for (Map.Entry<String, List<Point>> c : curves.entrySet()) {
            String color = ChartMain.COLORS[i++ % ChartMain.COLORS.length];
            StringBuilder path = new StringBuilder();
            for (Point p : c.getValue()) {
                path.append(path.length() == 0 ? "M" : " L")
                        .append(String.format(
                                Locale.ROOT,
                                "%.1f %.1f",
                                x.applyAsDouble(p.requestsPerSecond()),
                                y.applyAsDouble(p.p50())));
            }
            svg.append(String.format("<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>%n", path, color));
            int n = 0;
            for (Point p : c.getValue()) {
                double px = x.applyAsDouble(p.requestsPerSecond());
                double py = y.applyAsDouble(p.p50());
                int labelDy = n++ % 2 == 0 ? -6 : 14; // alternate above and below: neighbours of a curve may sit close
                svg.append(String.format(
                        Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>%n", px, py, color));
                svg.append(ChartMain.text(
                        (int) px + 6,
                        (int) py + labelDy,
                        String.format(
                                Locale.ROOT,
                                "%s: %s ms @ %s/s",
                                p.label(),
                                ChartMain.formatMs(p.p50()),
                                ChartMain.formatMs(p.requestsPerSecond())),
                        "fill=\"#333\" font-size=\"10\""));
            }
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>%n",
                    RIGHT - 250,
                    legendY,
                    color));
            svg.append(ChartMain.text(RIGHT - 232, legendY + 11, c.getKey(), ""));
            legendY += 18;
        }
        return svg.append("</svg>\n").toString();
    }
}
