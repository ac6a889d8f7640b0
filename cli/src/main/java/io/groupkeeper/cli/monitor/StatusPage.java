package io.groupkeeper.cli.monitor;

import io.groupkeeper.status.LagTimeRule;
import io.groupkeeper.zkprotocol.admin.GroupDescription;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The monitor's pages, rendered on the server as plain HTML with an inline SVG chart (no scripts, no front-end
 * toolchain). Everything that comes from ZooKeeper or Kafka — group, member, host, topic names, reasons, problems — is
 * HTML-escaped ({@link #esc}); links carry URL-encoded names.
 */
final class StatusPage {

    /** A rendered page and whether what it shows exists (else it is a 404 page). */
    record Rendered(boolean found, String html) {}

    static final int CHART_WIDTH = 720;
    static final int CHART_HEIGHT = 180;

    private final Monitor monitor;

    StatusPage(Monitor monitor) {
        this.monitor = monitor;
    }

    String index() {
        Monitor.State s = monitor.state();
        StringBuilder b = head("groupkeeper monitor", s);
        b.append("<h1>groupkeeper monitor</h1>\n");
        banner(b, s);
        b.append("<p class=\"meta\">namespace <code>")
                .append(esc(monitor.namespace()))
                .append("</code> &middot; ")
                .append(s.groups().size())
                .append(" group(s) &middot; sampled ")
                .append(esc(s.at().toString()))
                .append(" &middot; <a href=\"/metrics\">/metrics</a> &middot; <a href=\"/health\">/health</a></p>\n");
        if (s.groups().isEmpty()) {
            b.append("<p id=\"no-groups\">No groups under this namespace.</p>\n");
        } else {
            b.append("<table id=\"groups\">\n<thead><tr><th>group</th><th>status</th><th>state</th><th>members</th>"
                    + "<th>generation</th><th>lag</th><th>max lag time</th><th>rebalances</th><th>commits/s</th>"
                    + "</tr></thead>\n<tbody>\n");
            for (GroupSample g : s.groups().values()) {
                GroupDescription d = g.description();
                String status = g.statusLabel();
                b.append("<tr class=\"group\" data-group=\"")
                        .append(esc(g.group()))
                        .append("\">")
                        .append("<td><a href=\"/group/")
                        .append(url(g.group()))
                        .append("\">")
                        .append(esc(g.group()))
                        .append("</a></td>")
                        .append("<td class=\"status ")
                        .append(cls(status))
                        .append("\">")
                        .append(esc(status))
                        .append("</td>")
                        .append("<td>")
                        .append(esc(d.state().name()))
                        .append("</td>")
                        .append("<td>")
                        .append(d.members().size())
                        .append("</td>")
                        .append("<td>")
                        .append(d.generation())
                        .append("</td>")
                        .append("<td>")
                        .append(g.totalLag())
                        .append("</td>")
                        .append("<td>")
                        .append(
                                g.maxLagSeconds().isPresent()
                                        ? esc(LagTimeRule.format(Duration.ofMillis(
                                                (long) (g.maxLagSeconds().getAsDouble() * 1000))))
                                        : "-")
                        .append("</td>")
                        .append("<td>")
                        .append(g.rebalances())
                        .append("</td>")
                        .append("<td>")
                        .append(String.format(Locale.ROOT, "%.2f", g.commitRate()))
                        .append("</td>")
                        .append("</tr>\n");
            }
            b.append("</tbody>\n</table>\n");
        }
        return tail(b);
    }

    Rendered group(String name) {
        Monitor.State s = monitor.state();
        GroupSample g = s.groups().get(name);
        if (g == null) {
            StringBuilder b = head("group " + name + " - groupkeeper monitor", s);
            b.append("<h1>group <code>")
                    .append(esc(name))
                    .append("</code></h1>\n<p id=\"not-found\">No such group under " + "namespace <code>")
                    .append(esc(monitor.namespace()))
                    .append("</code> (deleted, or never there). " + "<a href=\"/\">All groups</a></p>\n");
            return new Rendered(false, tail(b));
        }
        GroupDescription d = g.description();
        StringBuilder b = head("group " + name + " - groupkeeper monitor", s);
        b.append("<p><a href=\"/\">&larr; all groups</a></p>\n");
        b.append("<h1>group <code>")
                .append(esc(name))
                .append("</code> <span id=\"group-status\" class=\"status ")
                .append(cls(g.statusLabel()))
                .append("\">")
                .append(esc(g.statusLabel()))
                .append("</span></h1>\n");
        banner(b, s);
        b.append("<p class=\"meta\">state ")
                .append(esc(d.state().name()))
                .append(" &middot; generation ")
                .append(d.generation())
                .append(" &middot; leader <code>")
                .append(esc(d.leader().orElse("-")))
                .append("</code> &middot; assignor ")
                .append(esc(d.assignor().isEmpty() ? "-" : d.assignor()))
                .append(" &middot; rebalances seen ")
                .append(g.rebalances())
                .append(" &middot; commits/s ")
                .append(String.format(Locale.ROOT, "%.2f", g.commitRate()))
                .append(" &middot; sampled ")
                .append(esc(g.at().toString()))
                .append("</p>\n");

        b.append("<h2>Lag, last ")
                .append(esc(LagTimeRule.format(monitor.settings().history())))
                .append("</h2>\n");
        chart(b, monitor.history(name).map(LagHistory::points).orElse(List.of()), s.at());

        b.append("<h2>Members</h2>\n");
        if (d.members().isEmpty()) {
            b.append("<p>No live members.</p>\n");
        } else {
            b.append("<table id=\"members\">\n<thead><tr><th>member</th><th>instance</th><th>host</th><th>owns</th>"
                    + "<th>joined</th></tr></thead>\n<tbody>\n");
            for (GroupDescription.Member m : d.members()) {
                b.append("<tr><td>")
                        .append(esc(m.memberId()))
                        .append("</td><td>")
                        .append(esc(m.instanceId().orElse("-")))
                        .append("</td><td>")
                        .append(esc(m.host()))
                        .append("</td><td>")
                        .append(esc(String.join(
                                ", ", m.owned().stream().map(Object::toString).toList())))
                        .append("</td><td>")
                        .append(esc(m.joinedAt().map(Instant::toString).orElse("-")))
                        .append("</td></tr>\n");
            }
            b.append("</tbody>\n</table>\n");
        }

        b.append("<h2>Partitions</h2>\n");
        Map<String, String> statuses = g.partitionStatus();
        Map<String, String> reasons = g.partitionReasons();
        b.append(
                "<table id=\"partitions\">\n<thead><tr><th>topic</th><th>partition</th><th>owner</th><th>committed</th>"
                        + "<th>log end</th><th>lag</th><th>lag time</th><th>status</th><th>why</th></tr></thead>\n<tbody>\n");
        for (GroupDescription.Partition p : d.partitions()) {
            String key = p.partition().toString();
            String status = statuses.getOrDefault(key, "-");
            b.append("<tr class=\"partition\" data-partition=\"")
                    .append(esc(key))
                    .append("\"><td>")
                    .append(esc(p.partition().topic()))
                    .append("</td><td>")
                    .append(p.partition().partition())
                    .append("</td><td>")
                    .append(esc(p.owner().orElse("-")))
                    .append("</td><td>")
                    .append(num(p.committed()))
                    .append("</td><td>")
                    .append(num(p.logEnd()))
                    .append("</td><td>")
                    .append(num(p.lag()))
                    .append("</td><td>")
                    .append(esc(p.lagTime().map(LagTimeRule::format).orElse("-")))
                    .append("</td><td class=\"status ")
                    .append(cls(status))
                    .append("\">")
                    .append(esc(status))
                    .append("</td><td>")
                    .append(esc(reasons.getOrDefault(key, "")))
                    .append("</td></tr>\n");
        }
        b.append("</tbody>\n</table>\n");
        if (!d.problems().isEmpty()) {
            b.append("<h2>Problems</h2>\n<ul id=\"problems\">\n");
            d.problems().forEach(pr -> b.append("<li>").append(esc(pr)).append("</li>\n"));
            b.append("</ul>\n");
        }
        return new Rendered(true, tail(b));
    }

    /** An SVG line chart of total lag (records) over the history span; a second line for the largest lag time. */
    static void chart(StringBuilder b, List<LagHistory.Point> points, Instant now) {
        int w = CHART_WIDTH;
        int h = CHART_HEIGHT;
        int pad = 4;
        b.append("<svg id=\"lag-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"")
                .append(w)
                .append("\" height=\"")
                .append(h)
                .append("\" viewBox=\"0 0 ")
                .append(w)
                .append(' ')
                .append(h)
                .append("\" role=\"img\" aria-label=\"lag over time\">\n");
        b.append("<rect x=\"0\" y=\"0\" width=\"")
                .append(w)
                .append("\" height=\"")
                .append(h)
                .append("\" fill=\"#fafafa\" stroke=\"#ccc\"/>\n");
        if (points.isEmpty()) {
            b.append("<text x=\"10\" y=\"20\">no samples yet</text>\n</svg>\n");
            return;
        }
        long start = points.get(0).at().toEpochMilli();
        long end =
                Math.max(now.toEpochMilli(), points.get(points.size() - 1).at().toEpochMilli());
        double span = Math.max(1, end - start);
        long maxLag = Math.max(
                1, points.stream().mapToLong(LagHistory.Point::lagRecords).max().orElse(1));
        double maxSec = Math.max(
                1,
                points.stream()
                        .mapToDouble(LagHistory.Point::lagSeconds)
                        .filter(v -> !Double.isNaN(v))
                        .max()
                        .orElse(1));
        StringBuilder records = new StringBuilder();
        StringBuilder seconds = new StringBuilder();
        for (int i = 0; i < points.size(); i++) {
            LagHistory.Point p = points.get(i);
            double x = points.size() == 1 ? pad : pad + (p.at().toEpochMilli() - start) / span * (w - 2 * pad);
            double y = h - pad - (double) p.lagRecords() / maxLag * (h - 2 * pad);
            records.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
            if (points.size() == 1) { // one sample: a level line across the chart
                records.append(String.format(Locale.ROOT, "%.1f,%.1f ", (double) (w - pad), y));
            }
            if (!Double.isNaN(p.lagSeconds())) {
                double ys = h - pad - p.lagSeconds() / maxSec * (h - 2 * pad);
                seconds.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, ys));
            }
        }
        b.append("<polyline class=\"lag-records\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"")
                .append(records.toString().strip())
                .append("\"/>\n");
        if (seconds.length() > 0) {
            b.append("<polyline class=\"lag-seconds\" fill=\"none\" stroke=\"#ff7f0e\" stroke-width=\"1\" "
                            + "stroke-dasharray=\"4 2\" points=\"")
                    .append(seconds.toString().strip())
                    .append("\"/>\n");
        }
        b.append("<text x=\"8\" y=\"16\" font-size=\"12\" fill=\"#1f77b4\">lag, max ")
                .append(maxLag)
                .append(" records</text>\n<text x=\"8\" y=\"32\" font-size=\"12\" fill=\"#ff7f0e\">lag time, max ")
                .append(esc(LagTimeRule.format(Duration.ofMillis((long) (maxSec * 1000)))))
                .append("</text>\n");
        b.append("</svg>\n<p class=\"meta\">")
                .append(points.size())
                .append(" sample(s) since ")
                .append(esc(points.get(0).at().toString()))
                .append("</p>\n");
    }

    private StringBuilder head(String title, Monitor.State s) {
        StringBuilder b = new StringBuilder(4096);
        long refresh = Math.max(1, monitor.settings().interval().toSeconds());
        b.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                .append("<meta http-equiv=\"refresh\" content=\"")
                .append(refresh)
                .append("\">\n")
                .append("<title>")
                .append(esc(title))
                .append("</title>\n")
                .append("<style>body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}"
                        + "td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}.meta{color:#555}"
                        + ".OK{background:#d4f7d4}.WARN{background:#fff3c4}.REWIND{background:#dfe8ff}"
                        + ".STALL,.STOP,.CORRUPT{background:#ffd6d6}.down{background:#ffd6d6;padding:6px}</style>\n")
                .append("</head>\n<body>\n");
        return b;
    }

    private static void banner(StringBuilder b, Monitor.State s) {
        if (!s.up()) {
            b.append("<p id=\"down\" class=\"down\">Last sample incomplete: ")
                    .append(s.zookeeperUp() ? "" : "ZooKeeper unreachable. ")
                    .append(s.kafkaConfigured() && !s.kafkaUp() ? "Kafka unreachable. " : "")
                    .append("Showing the last values seen.</p>\n");
        }
        for (String e : s.errors()) {
            b.append("<p class=\"error\">").append(esc(e)).append("</p>\n");
        }
    }

    private static String tail(StringBuilder b) {
        return b.append("</body>\n</html>\n").toString();
    }

    private static String num(OptionalLong v) {
        return v.isPresent() ? String.valueOf(v.getAsLong()) : "-";
    }

    /** A CSS class from a status label (only letters pass). */
    private static String cls(String status) {
        return status.replaceAll("[^A-Za-z]", "");
    }

    static String url(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** HTML-escapes text and attribute values. */
    static String esc(String s) {
        StringBuilder out = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
