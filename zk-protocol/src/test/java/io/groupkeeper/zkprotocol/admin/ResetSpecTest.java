package io.groupkeeper.zkprotocol.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.TopicPartition;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Each spec's own planning: the offset it requests for a partition, and the note it leaves. */
class ResetSpecTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final OptionalLong NONE = OptionalLong.empty();

    private static ResetSpec.Position at(
            OptionalLong committed, OptionalLong start, OptionalLong end, OptionalLong atTime, boolean logKnown) {
        return new ResetSpec.Position(committed, start, end, atTime, logKnown);
    }

    private static OptionalLong of(long v) {
        return OptionalLong.of(v);
    }

    @Test
    void earliestAndLatestTakeTheLogBounds() {
        ResetSpec.Position p = at(of(5), of(2), of(9), NONE, true);
        assertThat(new ResetSpec.ToEarliest().request(TP, p)).isEqualTo(new ResetSpec.Request(of(2), Optional.empty()));
        assertThat(new ResetSpec.ToLatest().request(TP, p)).isEqualTo(new ResetSpec.Request(of(9), Optional.empty()));
        assertThat(new ResetSpec.ToOffset(7).request(TP, p).offset()).isEqualTo(of(7));
    }

    @Test
    void currentFallsBackToTheLogEndAndOtherwiseSkips() {
        ResetSpec spec = new ResetSpec.ToCurrent();
        assertThat(spec.request(TP, at(of(5), of(2), of(9), NONE, true)).offset())
                .isEqualTo(of(5));
        assertThat(spec.request(TP, at(NONE, of(2), of(9), NONE, true)))
                .isEqualTo(new ResetSpec.Request(of(9), Optional.of("no committed offset: log end")));
        ResetSpec.Request skipped = spec.request(TP, at(NONE, NONE, NONE, NONE, false));
        assertThat(skipped.offset()).isEmpty();
        assertThat(skipped.note())
                .hasValueSatisfying(n ->
                        assertThat(n).startsWith("skipped: no committed offset").contains("log end unknown"));
        assertThat(spec.request(TP, at(NONE, NONE, NONE, NONE, true)).note()).hasValue("skipped: no committed offset");
    }

    @Test
    void shiftMovesTheCommittedOffsetSaturatingAndSkipsWithoutOne() {
        assertThat(new ResetSpec.ShiftBy(-3)
                        .request(TP, at(of(5), NONE, NONE, NONE, false))
                        .offset())
                .isEqualTo(of(2));
        assertThat(new ResetSpec.ShiftBy(Long.MAX_VALUE)
                        .request(TP, at(of(5), NONE, NONE, NONE, false))
                        .offset())
                .isEqualTo(of(Long.MAX_VALUE));
        assertThat(new ResetSpec.ShiftBy(Long.MIN_VALUE)
                        .request(TP, at(of(-5), NONE, NONE, NONE, false))
                        .offset())
                .isEqualTo(of(Long.MIN_VALUE));
        assertThat(new ResetSpec.ShiftBy(1).request(TP, at(NONE, of(0), of(9), NONE, true)))
                .isEqualTo(new ResetSpec.Request(NONE, Optional.of("skipped: no committed offset to shift")));
    }

    @Test
    void timeSpecsTakeTheTimeIndexAndElseTheLogEnd() {
        Clock clock = Clock.fixed(Instant.parse("2026-12-01T12:00:00Z"), ZoneOffset.UTC);
        ResetSpec byDuration = new ResetSpec.ByDuration(Duration.ofMinutes(30));
        assertThat(byDuration.time(clock)).hasValue(Instant.parse("2026-12-01T11:30:00Z"));
        assertThat(byDuration.describeTime(Instant.parse("2026-12-01T11:30:00Z")))
                .hasValue("--by-duration PT30M: records from 2026-12-01T11:30:00Z on");
        ResetSpec datetime = new ResetSpec.ToDatetime(Instant.parse("2026-01-01T00:00:00Z"));
        assertThat(datetime.time(clock)).hasValue(Instant.parse("2026-01-01T00:00:00Z"));
        assertThat(datetime.describeTime(Instant.EPOCH)).isEmpty();
        for (ResetSpec spec : new ResetSpec[] {byDuration, datetime}) {
            assertThat(spec.request(TP, at(of(1), of(0), of(9), of(4), true)).offset())
                    .isEqualTo(of(4));
            assertThat(spec.request(TP, at(of(1), of(0), of(9), NONE, true)))
                    .isEqualTo(new ResetSpec.Request(of(9), Optional.of("no record at or after that time: log end")));
        }
        assertThat(new ResetSpec.ToOffset(1).time(clock)).isEmpty();
    }

    @Test
    void givenOffsetsAreTheirOwnSourceAndRequestedAsGiven() {
        Map<TopicPartition, Long> offsets = new TreeMap<>(Map.of(TP, 42L));
        ResetSpec spec = new ResetSpec.FromOffsets(new SourceOffsets("f.csv", new TreeMap<>(offsets), Map.of()));
        assertThat(spec.source()).isPresent();
        assertThat(spec.request(TP, at(of(1), of(0), of(9), NONE, true)).offset())
                .isEqualTo(of(42));
        assertThat(spec.request(new TopicPartition("t", 1), at(of(1), of(0), of(9), NONE, true))
                        .offset())
                .isEmpty();
        assertThat(new ResetSpec.ToLatest().source()).isEmpty();
    }
}
