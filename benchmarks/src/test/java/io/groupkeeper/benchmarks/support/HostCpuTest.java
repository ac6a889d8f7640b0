package io.groupkeeper.benchmarks.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class HostCpuTest {

    @Test
    void sharesAreOfAllCoresTimeBetweenTwoReadings() {
        // Two /proc/stat readings 30 s apart on this machine's kind (2 cores: ~6,000 ticks), during a JMH run.
        HostCpu a = HostCpu.parse("cpu  134943 0 21383 1876698 464 0 4822 18107 0 0");
        HostCpu b = HostCpu.parse("cpu  138543 0 21683 1878389 468 0 4935 18452 0 0");
        HostCpu.Share s = b.since(a);
        long total = (3600 + 300 + 113) + 1691 + 4 + 345;
        assertThat(s.stealPct()).isCloseTo(100.0 * 345 / total, within(1e-9));
        assertThat(s.iowaitPct()).isCloseTo(100.0 * 4 / total, within(1e-9));
        assertThat(s.busyPct()).isCloseTo(100.0 * (3600 + 300 + 113) / total, within(1e-9));
        assertThat(s.describe())
                .isEqualTo("steal 5.7 %, iowait 0.1 %, busy 66 %"
                        + " (noisy: steal above 2 %, compare only with figures of the same window)");
        assertThat(s.toMap())
                .containsEntry("stealPct", 5.7)
                .containsEntry("iowaitPct", 0.1)
                .containsEntry("noisy", true);
    }

    @Test
    void aWindowWithLittleStealIsNotNoisy() {
        // 1,000 ticks, 15 of them stolen: 1.5 %, below the 2 % at which figures stop being comparable.
        HostCpu a = HostCpu.parse("cpu 0 0 0 0 0 0 0 0 0 0");
        HostCpu b = HostCpu.parse("cpu 600 0 0 385 0 0 0 15 0 0");
        HostCpu.Share s = b.since(a);
        assertThat(s.noisy()).isFalse();
        assertThat(s.describe()).isEqualTo("steal 1.5 %, iowait 0.0 %, busy 60 %");
        assertThat(s.toMap()).containsEntry("noisy", false);
        HostCpu c = HostCpu.parse("cpu 600 0 0 379 0 0 0 21 0 0"); // 2.1 %
        assertThat(c.since(a).noisy()).isTrue();
    }

    @Test
    void noiseIsJudgedOnTheShareAsPrinted() {
        // 10,000 ticks: 204 stolen print as 2.0 % and are not noisy; 206 print as 2.1 % and are.
        HostCpu a = HostCpu.parse("cpu 0 0 0 0 0 0 0 0 0 0");
        HostCpu.Share atTwo = HostCpu.parse("cpu 6000 0 0 3796 0 0 0 204 0 0").since(a);
        assertThat(atTwo.describe()).startsWith("steal 2.0 %").doesNotContain("noisy");
        assertThat(atTwo.toMap()).containsEntry("stealPct", 2.0).containsEntry("noisy", false);
        HostCpu.Share above = HostCpu.parse("cpu 6000 0 0 3794 0 0 0 206 0 0").since(a);
        assertThat(above.describe()).startsWith("steal 2.1 %").contains("noisy");
        assertThat(above.toMap()).containsEntry("stealPct", 2.1).containsEntry("noisy", true);
    }

    @Test
    void guestTimeIsNotCountedTwice() {
        HostCpu a = HostCpu.parse("cpu 0 0 0 0 0 0 0 0 0 0");
        HostCpu b = HostCpu.parse("cpu 100 0 0 100 0 0 0 0 100 0"); // guest is part of user already
        assertThat(b.since(a).busyPct()).isEqualTo(50.0);
    }

    @Test
    void withoutTimeBetweenTheReadingsTheSharesAreUnknown() {
        HostCpu a = HostCpu.parse("cpu 1 2 3 4 5 6 7 8");
        assertThat(a.since(a).describe()).startsWith("unknown");
        assertThat(a.since(a).toMap().get("stealPct")).isNull();
        assertThat(a.since(a).noisy()).as("unknown is not reported as noisy").isFalse();
    }

    @Test
    void anotherLineIsRefusedByName() {
        assertThatThrownBy(() -> HostCpu.parse("cpu0 1 2 3 4 5 6 7 8"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cpu0 1 2");
    }
}
