package io.groupkeeper.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class LagTimeRuleTest {

    private final LagTimeRule rule = new LagTimeRule(Duration.ofMinutes(5));
    private final PartitionStatus ok = new PartitionStatus(LagStatus.OK, OptionalLong.of(3), "committing, lag 3");

    @Test
    void aLagTimeAboveTheMaximumTurnsOkIntoWarn() {
        PartitionStatus s = rule.apply(ok, Optional.of(Duration.ofSeconds(301)));
        assertThat(s.status()).isEqualTo(LagStatus.WARN);
        assertThat(s.lag()).hasValue(3);
        assertThat(s.reason()).isEqualTo("lag time 5m1s exceeds the maximum 5m0s");
    }

    @Test
    void atOrBelowTheMaximumOrUnknownNothingChanges() {
        assertThat(rule.apply(ok, Optional.of(Duration.ofMinutes(5)))).isSameAs(ok);
        assertThat(rule.apply(ok, Optional.of(Duration.ZERO))).isSameAs(ok);
        assertThat(rule.apply(ok, Optional.empty())).isSameAs(ok);
    }

    @Test
    void aWorseStatusStaysAndGainsTheReason() {
        PartitionStatus stall = new PartitionStatus(LagStatus.STALL, OptionalLong.of(7), "3 commits of offset 3");
        PartitionStatus s = rule.apply(stall, Optional.of(Duration.ofHours(2)));
        assertThat(s.status()).isEqualTo(LagStatus.STALL);
        assertThat(s.reason()).isEqualTo("3 commits of offset 3; lag time 2h0m0s exceeds the maximum 5m0s");
    }

    @Test
    void formatsWholeSeconds() {
        assertThat(LagTimeRule.format(Duration.ofMillis(999))).isEqualTo("0s");
        assertThat(LagTimeRule.format(Duration.ofSeconds(42))).isEqualTo("42s");
        assertThat(LagTimeRule.format(Duration.ofSeconds(3 * 3600 + 2 * 60 + 5)))
                .isEqualTo("3h2m5s");
        assertThat(LagTimeRule.format(Duration.ofDays(2).plusSeconds(1))).isEqualTo("2d0h0m1s");
    }

    @Test
    void theMaximumMustBePositive() {
        assertThatThrownBy(() -> new LagTimeRule(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maximum lag time must be positive, was PT0S");
    }
}
