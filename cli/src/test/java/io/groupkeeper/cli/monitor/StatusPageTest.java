package io.groupkeeper.cli.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The page's pure parts: escaping, the lag ring and the chart's geometry. */
class StatusPageTest {

    private static final Instant T = Instant.parse("2026-12-01T10:00:00Z");

    @Test
    void escapesTextAndAttributes() {
        assertThat(StatusPage.esc("<a href=\"x\">'&'</a>"))
                .isEqualTo("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
        assertThat(StatusPage.url("a b/c")).isEqualTo("a%20b%2Fc");
    }

    @Test
    void theRingKeepsOnlyTheSpan() {
        LagHistory h = new LagHistory(Duration.ofMinutes(1), Duration.ofSeconds(10)); // 7 points at most
        for (int i = 0; i <= 12; i++) {
            h.add(new LagHistory.Point(T.plusSeconds(10L * i), i, Double.NaN));
        }
        List<LagHistory.Point> points = h.points();
        assertThat(points).hasSize(7);
        assertThat(points.get(0).at()).isEqualTo(T.plusSeconds(60));
        assertThat(points.get(6).lagRecords()).isEqualTo(12);
    }

    @Test
    void theChartDrawsOnePointPerSampleScaledToTheLargestLag() {
        StringBuilder b = new StringBuilder();
        StatusPage.chart(
                b,
                List.of(
                        new LagHistory.Point(T, 0, 0),
                        new LagHistory.Point(T.plusSeconds(30), 50, 10),
                        new LagHistory.Point(T.plusSeconds(60), 100, Double.NaN)),
                T.plusSeconds(60));
        String svg = b.toString();
        assertThat(svg).contains("points=\"4.0,176.0 360.0,90.0 716.0,4.0\""); // records: 0, half, full height
        assertThat(svg).contains("class=\"lag-seconds\"").contains("points=\"4.0,176.0 360.0,4.0\""); // NaN skipped
        assertThat(svg).contains("lag, max 100 records", "3 sample(s)");
    }

    @Test
    void oneSampleIsALevelLineAndNoneSaysSo() {
        StringBuilder one = new StringBuilder();
        StatusPage.chart(one, List.of(new LagHistory.Point(T, 5, Double.NaN)), T);
        assertThat(one.toString()).contains("points=\"4.0,4.0 716.0,4.0\"").doesNotContain("lag-seconds");
        StringBuilder none = new StringBuilder();
        StatusPage.chart(none, List.of(), T);
        assertThat(none.toString()).contains("no samples yet").doesNotContain("polyline");
    }
}
