package io.groupkeeper.kafka.container.internal.progress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.zkprotocol.admin.DoneValue;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The operators' reader of done values ({@code groups describe}, zk-protocol's {@link DoneValue}: zk-protocol and the
 * CLI cannot depend on this module) reads what {@link ProgressCodec} writes as {@link ProgressCodec#decode} does:
 * the same count for every form (ranges, bits, attempts), nothing for a value written with another offset, and a
 * refusal for the values decode refuses.
 */
class DoneValueAgreesWithProgressCodecTest {

    @Test
    void everyEncodedProgressCountsTheSameDoneOffsetsInBothReaders() {
        Random random = new Random(46);
        for (int run = 0; run < 2_000; run++) {
            long lowWater =
                    random.nextInt(4) == 0 ? Long.MAX_VALUE - ProgressLimits.MAX_SPAN : random.nextInt(1_000_000);
            int span = 1 + random.nextInt(random.nextBoolean() ? 64 : ProgressLimits.MAX_SPAN - 1);
            TreeSet<Long> done = new TreeSet<>();
            double density = random.nextDouble();
            int picks = random.nextInt(Math.min(span, 3_000));
            for (int i = 0; i < picks; i++) {
                done.add(lowWater + 1 + (density < 0.5 ? random.nextInt(span) : i));
            }
            TreeMap<Long, Integer> attempts = new TreeMap<>();
            if (random.nextBoolean()) {
                attempts.put(lowWater, 1 + random.nextInt(5));
            }
            OffsetProgress p = new OffsetProgress(lowWater, done, attempts);
            Optional<String> text = ProgressCodec.encode(p);
            if (text.isEmpty()) {
                continue;
            }
            assertThat(DoneValue.doneAbove(lowWater, text.get()))
                    .as(text.get())
                    .isEqualTo(ProgressCodec.decode(text.get()).done().size())
                    .isEqualTo(done.size());
            assertThat(DoneValue.doneAbove(lowWater + 1, text.get()))
                    .as("written with another offset")
                    .isZero();
            assertThat(ProgressCodec.resume(lowWater + 1, text).done()).isEmpty();
        }
    }

    @Test
    void theValuesDecodeRefusesTheOperatorsReaderRefusesToo() {
        for (String bad : List.of(
                "[1]",
                "{}",
                "{\"from\":-1,\"ranges\":[]}",
                "{\"from\":1.5,\"ranges\":[]}",
                "{\"from\":5,\"ranges\":[],\"bits\":\"\"}",
                "{\"from\":5,\"ranges\":[[5,6]]}",
                "{\"from\":5,\"ranges\":[[8,9],[7,7]]}",
                "{\"from\":5,\"ranges\":[[7,6]]}",
                "{\"from\":5,\"ranges\":[[7]]}",
                "{\"from\":5,\"bits\":\"***\"}",
                "{\"from\":5,\"bits\":7}",
                "{\"from\":5,\"ranges\":[[6," + (5 + ProgressLimits.MAX_SPAN) + "]]}",
                "{\"from\":5,\"ranges\":[],\"attempts\":[[4,1]]}",
                "{\"from\":5,\"ranges\":[],\"attempts\":[[5,0]]}",
                "{\"from\":5,\"ranges\":[[6,6]],\"attempts\":[[6,1]]}",
                "{\"from\":5,\"ranges\":[],\"attempts\":[[5,1],[5,2]]}",
                "{\"from\":5,\"ranges\":[]} x",
                "{\"from\":5,\"from\":6,\"ranges\":[]}")) {
            assertThatThrownBy(() -> ProgressCodec.decode(bad))
                    .as("decode %s", bad)
                    .isInstanceOf(ProgressFormatException.class);
            assertThatThrownBy(() -> DoneValue.doneAbove(5, bad))
                    .as("the operators' reader, %s", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("done value unreadable: ");
        }
        assertThat(DoneValue.doneAbove(5, "{\"from\":5,\"ranges\":[[7,9]],\"later\":{\"x\":1}}"))
                .as("unknown fields ignored, as decode ignores them")
                .isEqualTo(ProgressCodec.decode("{\"from\":5,\"ranges\":[[7,9]],\"later\":{\"x\":1}}")
                        .done()
                        .size())
                .isEqualTo(3);
    }
}
