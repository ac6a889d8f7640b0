package io.groupkeeper.kafka.container.internal.progress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import java.util.BitSet;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The {@code "done"} value of the offset node: its forms, its bound, resuming, and one clear error per bad value. */
class ProgressCodecTest {

    private static OffsetProgress progress(long lowWater, Set<Long> done, Map<Long, Integer> attempts) {
        return new OffsetProgress(lowWater, new TreeSet<>(done), new TreeMap<>(attempts));
    }

    private static NavigableSet<Long> range(long first, long last) {
        return new TreeSet<>(LongStream.rangeClosed(first, last).boxed().toList());
    }

    @Test
    void smallSetsAreReadableRangesAndNothingDoneIsNoValueAtAll() {
        assertThat(ProgressCodec.encode(OffsetProgress.at(100))).isEmpty();
        OffsetProgress p = progress(100, Set.of(105L, 106L, 107L, 110L), Map.of());
        String text = ProgressCodec.encode(p).orElseThrow();
        assertThat(text).isEqualTo("{\"from\":100,\"ranges\":[[105,107],[110,110]]}");
        assertThat(ProgressCodec.decode(text)).isEqualTo(p);
        OffsetProgress failing = progress(100, Set.of(), Map.of(100L, 3));
        assertThat(ProgressCodec.encode(failing)).hasValue("{\"from\":100,\"ranges\":[],\"attempts\":[[100,3]]}");
        assertThat(ProgressCodec.decode(ProgressCodec.encode(failing).orElseThrow()))
                .isEqualTo(failing);
    }

    @Test
    void scatteredSetsTakeTheShorterBitsetRelativeToTheLowWaterMark() {
        NavigableSet<Long> everyOther = new TreeSet<>();
        for (long o = 1_002; o < 1_200; o += 2) {
            everyOther.add(o);
        }
        OffsetProgress p = new OffsetProgress(1_000, everyOther, new TreeMap<>());
        String text = ProgressCodec.encode(p).orElseThrow();
        assertThat(text).startsWith("{\"from\":1000,\"bits\":\"");
        String bits = text.substring("{\"from\":1000,\"bits\":\"".length(), text.length() - 2);
        BitSet set = BitSet.valueOf(Base64.getDecoder().decode(bits));
        assertThat(set.get(0)).as("bit 0 is from + 1 = 1001").isFalse();
        assertThat(set.get(1)).as("bit 1 is 1002").isTrue();
        assertThat(set.cardinality()).isEqualTo(everyOther.size());
        assertThat(ProgressCodec.decode(text)).isEqualTo(p);
        // one long run stays ranges
        assertThat(ProgressCodec.encode(new OffsetProgress(0, range(2, 5_000), new TreeMap<>())))
                .hasValue("{\"from\":0,\"ranges\":[[2,5000]]}");
    }

    @Test
    void handWrittenValuesWithSpacesAndUnknownFieldsAreRead() {
        OffsetProgress p = ProgressCodec.decode(
                " { \"ranges\" : [ [ 5 , 6 ] ] , \"from\" : 3 , \"note\" : [true, null, \"x\"] } ");
        assertThat(p).isEqualTo(progress(3, Set.of(5L, 6L), Map.of()));
    }

    @Test
    void onlyTheLowestAttemptsAreRecordedBeyondTheirCap() {
        Map<Long, Integer> many = new TreeMap<>();
        for (long o = 0; o < ProgressCodec.MAX_RECORDED_ATTEMPTS + 5; o++) {
            many.put(o, 2);
        }
        OffsetProgress decoded = ProgressCodec.decode(
                ProgressCodec.encode(progress(0, Set.of(), many)).orElseThrow());
        assertThat(decoded.attempts()).hasSize(ProgressCodec.MAX_RECORDED_ATTEMPTS);
        assertThat(decoded.attempts().lastKey()).isEqualTo(ProgressCodec.MAX_RECORDED_ATTEMPTS - 1);
    }

    @Test
    void aNewOwnerTakesTheDoneSetOnlyWhenTheOffsetIsStillTheOneItWasWrittenWith() {
        String text = "{\"from\":100,\"ranges\":[[105,107]]}";
        assertThat(ProgressCodec.resume(100, Optional.of(text)).done()).containsExactly(105L, 106L, 107L);
        assertThat(ProgressCodec.resume(100, Optional.empty())).isEqualTo(OffsetProgress.at(100));
        // an operator reset the offset to 20 (or to 104) and left the value: the reset wins, the set is cleared (I4)
        assertThat(ProgressCodec.resume(20, Optional.of(text))).isEqualTo(OffsetProgress.at(20));
        assertThat(ProgressCodec.resume(104, Optional.of(text))).isEqualTo(OffsetProgress.at(104));
        OffsetProgress p = ProgressCodec.resume(100, Optional.of(text));
        assertThat(LongStream.range(95, 110).filter(p::isDone).boxed().toList())
                .containsExactly(95L, 96L, 97L, 98L, 99L, 105L, 106L, 107L);
    }

    @Test
    void theBoundIsReachedExactlyByTheWorstSetTheLargestOffsetsAndAllAttempts() {
        for (int span : new int[] {4_096, 10_000, 65_536, ProgressLimits.MAX_SPAN}) {
            long from = Long.MAX_VALUE - span;
            NavigableSet<Long> alternate = new TreeSet<>();
            for (long o = from + span - 1; o > from; o -= 2) {
                alternate.add(o);
            }
            Map<Long, Integer> attempts = new TreeMap<>();
            for (long o = from + span - 1; attempts.size() < ProgressCodec.MAX_RECORDED_ATTEMPTS; o--) {
                if (!alternate.contains(o)) {
                    attempts.put(o, Integer.MAX_VALUE);
                }
            }
            int length = ProgressCodec.encode(new OffsetProgress(from, alternate, new TreeMap<>(attempts)))
                    .orElseThrow()
                    .length();
            assertThat(length).as("span %d", span).isEqualTo(ProgressCodec.maxEncodedLength(span));
        }
        assertThat(ProgressCodec.maxEncodedLength(ProgressLimits.MAX_SPAN)).isLessThan(48 * 1024);
        assertThatThrownBy(() -> ProgressCodec.maxEncodedLength(0)).hasMessageContaining("max span must be >= 1");
    }

    @Test
    void aProgressBeyondAnySpanIsRefusedWhenWrittenNotOnlyWhenRead() {
        assertThatThrownBy(() -> ProgressCodec.encode(progress(0, Set.of((long) ProgressLimits.MAX_SPAN), Map.of())))
                .hasMessageContaining("offset 262144 is 262144 or more above the low-water mark 0");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            ''                                                  | unexpected end
            nonsense                                            | unexpected 'n'
            []                                                  | expected an object
            {"from":100}                                        | exactly one of the fields 'ranges' and 'bits'
            {"from":100,"ranges":[],"bits":""}                  | exactly one of the fields 'ranges' and 'bits'
            {"ranges":[]}                                       | field 'from' must be an integer >= 0, was null
            {"from":-1,"ranges":[]}                             | field 'from' must be an integer >= 0, was -1
            {"from":"100","ranges":[]}                          | field 'from' must be an integer >= 0, was 100
            {"from":1.5,"ranges":[]}                            | not an integer
            {"from":99999999999999999999,"ranges":[]}           | not an integer in range
            {"from":100,"ranges":[[107,105]]}                   | range [107, 105] ends before it starts
            {"from":100,"ranges":[[100,101]]}                   | range [100, 101] is not above 'from' 100
            {"from":100,"ranges":[[105,107],[106,110]]}         | range [106, 110] is not after the range before it
            {"from":100,"ranges":[[110,111],[105,107]]}         | range [105, 107] is not after the range before it
            {"from":100,"ranges":[[105]]}                       | a range must be [first, last] of integers, was [105]
            {"from":100,"ranges":[[105,"x"]]}                   | a range must be [first, last] of integers
            {"from":100,"ranges":"105-107"}                     | field 'ranges' must be an array of [first, last]
            {"from":0,"ranges":[[1,999999999999]]}              | offset 999999999999 is outside 'from' .. 'from' + 262143 (0..262143)
            {"from":100,"bits":"!!!"}                           | field 'bits' is not base64
            {"from":100,"bits":7}                               | field 'bits' must be a base64 string, was 7
            {"from":100,"ranges":[],"attempts":[[99,1]]}        | offset 99 is outside 'from' .. 'from' + 262143 (100..262243)
            {"from":100,"ranges":[],"attempts":[[100,0]]}       | attempts [100, 0] must count 1..2147483647
            {"from":100,"ranges":[],"attempts":[[100,1],[100,2]]} | attempts at offset 100 given twice
            {"from":100,"ranges":[[101,101]],"attempts":[[101,2]]} | offset 101 is both done and has attempts
            {"from":100,"ranges":[],"attempts":{}}              | field 'attempts' must be an array
            {"from":100,"from":101,"ranges":[]}                 | field 'from' given twice
            {"from":100,"ranges":[]} trailing                   | unexpected 't' after the value
            {"from":100,"ranges":[[[[[[[[[[1]]]]]]]]]]}         | nested deeper than 8
            {"from":100,"ranges":["a\\"b"]}                     | escapes are not used
            {"from":100,"ranges":["open                         | unterminated string
            {"from":100 "ranges":[]}                            | expected '}', found '"'
            """)
    void garbageIsRefusedWithOneErrorNamingTheValueAndTheProblem(String text, String problem) {
        assertThatThrownBy(() -> ProgressCodec.decode(text))
                .isInstanceOf(ProgressFormatException.class)
                .hasMessageStartingWith("offset progress '" + text.substring(0, Math.min(text.length(), 20)))
                .hasMessageContaining(problem);
        assertThatThrownBy(() -> ProgressCodec.resume(100, Optional.of(text)))
                .isInstanceOf(ProgressFormatException.class);
    }

    @Test
    void aProgressRefusesAnInconsistentState() {
        assertThatThrownBy(() -> progress(-1, Set.of(), Map.of())).hasMessageContaining("must be >= 0, was -1");
        assertThatThrownBy(() -> progress(5, Set.of(5L), Map.of()))
                .hasMessageContaining("done offset 5 is not above the low-water mark 5");
        assertThatThrownBy(() -> progress(5, Set.of(), Map.of(4L, 1)))
                .hasMessageContaining("attempts at offset 4 below the low-water mark 5");
        assertThatThrownBy(() -> progress(5, Set.of(), Map.of(5L, 0)))
                .hasMessageContaining("attempts at offset 5 must be >= 1, was 0");
        assertThatThrownBy(() -> progress(5, Set.of(6L), Map.of(6L, 1)))
                .hasMessageContaining("offset 6 is both done and has attempts");
        OffsetProgress p = progress(5, Set.of(7L, 9L), Map.of(5L, 2));
        assertThat(p.span()).isEqualTo(4);
        assertThat(p.attemptsAt(5)).isEqualTo(2);
        assertThat(p.attemptsAt(6)).isZero();
        assertThat(p.toString()).isEqualTo("progress[low-water 5, done above 2, attempts {5=2}]");
    }

    @ParameterizedTest
    @ValueSource(ints = {10, 100_000})
    void aValueLongerThanAnyProgressIsRefusedBeforeItIsParsed(int repeat) {
        String text = "{\"from\":1,\"ranges\":[" + "[2,2],".repeat(repeat) + "[3,3]]}";
        if (text.length() > 2 * ProgressCodec.maxEncodedLength(ProgressLimits.MAX_SPAN)) {
            assertThatThrownBy(() -> ProgressCodec.decode(text))
                    .hasMessageContaining("longer than any progress (at most 88")
                    .hasMessageContaining("...' (" + text.length() + " chars)");
        } else {
            assertThatThrownBy(() -> ProgressCodec.decode(text))
                    .hasMessageContaining("is not after the range before it");
        }
        assertThatThrownBy(() -> ProgressCodec.decode(null)).hasMessage("offset progress null is not valid: no value");
    }
}
