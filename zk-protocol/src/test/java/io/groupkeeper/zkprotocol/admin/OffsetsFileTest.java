package io.groupkeeper.zkprotocol.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.TopicPartition;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class OffsetsFileTest {

    private static SortedMap<TopicPartition, Long> sample() {
        SortedMap<TopicPartition, Long> m = new TreeMap<>();
        m.put(new TopicPartition("orders", 0), 42L);
        m.put(new TopicPartition("orders", 1), 0L);
        m.put(new TopicPartition("payments.v2", 10), Long.MAX_VALUE);
        return m;
    }

    @Test
    void csvRoundTripIsExact() {
        String csv = OffsetsFile.toCsv(sample());
        assertThat(csv).isEqualTo("orders,0,42\norders,1,0\npayments.v2,10,9223372036854775807\n");
        SourceOffsets parsed = OffsetsFile.parse("f.csv", csv);
        assertThat(parsed.offsets()).isEqualTo(sample());
        assertThat(OffsetsFile.toCsv(parsed.offsets())).isEqualTo(csv);
        assertThat(parsed.origins().get(new TopicPartition("orders", 1))).isEqualTo("line 2 of f.csv");
    }

    @Test
    void jsonRoundTripIsExact() {
        String json = OffsetsFile.toJson("g", sample());
        SourceOffsets parsed = OffsetsFile.parse("f.json", json);
        assertThat(parsed.offsets()).isEqualTo(sample());
        assertThat(OffsetsFile.toJson("g", parsed.offsets())).isEqualTo(json);
        assertThat(parsed.origins().get(new TopicPartition("orders", 1))).isEqualTo("line 3 of f.json");
        assertThat(parsed.group()).as("the group it was exported from").hasValue("g");
        assertThat(OffsetsFile.parse("f.csv", OffsetsFile.toCsv(sample())).group())
                .isEmpty();
    }

    @Test
    void csvAcceptsHeaderCommentsBlankLinesSpacesAndCrlf() {
        SourceOffsets p =
                OffsetsFile.parse("f", "\uFEFFtopic,partition,offset\r\n# a comment\r\n\r\n orders , 3 , 7 \r\n");
        assertThat(p.offsets()).containsExactly(java.util.Map.entry(new TopicPartition("orders", 3), 7L));
    }

    @Test
    void jsonAcceptsABareArrayAndIgnoresUnknownFields() {
        SourceOffsets p = OffsetsFile.parse("f", "[{\"topic\":\"t\",\"partition\":1,\"offset\":5,\"metadata\":\"x\"}]");
        assertThat(p.offsets()).containsEntry(new TopicPartition("t", 1), 5L);
    }

    @Test
    void csvErrorsNameTheLine() {
        assertThatThrownBy(() -> OffsetsFile.parse("f.csv", "t,0,1\nt,1\n"))
                .isInstanceOf(AdminException.class)
                .hasMessageStartingWith("f.csv line 2: expected topic,partition,offset, found 2 field(s): 't,1'");
        assertThatThrownBy(() -> OffsetsFile.parse("f.csv", "t,0,1\n\nt,1,-5\n"))
                .hasMessageStartingWith("f.csv line 3: offset must be >= 0, was -5");
        assertThatThrownBy(() -> OffsetsFile.parse("f.csv", "t,x,1\n"))
                .hasMessageStartingWith("f.csv line 1: partition 'x' is not a number");
        assertThatThrownBy(() -> OffsetsFile.parse("f.csv", "t,0,abc\n"))
                .hasMessageStartingWith("f.csv line 1: offset 'abc' is not a number");
        assertThatThrownBy(() -> OffsetsFile.parse("f.csv", "a b,0,1\n"))
                .hasMessageStartingWith("f.csv line 1: invalid topic 'a b'");
        assertThatThrownBy(() -> OffsetsFile.parse("f.csv", "t,0,1\nt,0,2\n"))
                .hasMessageStartingWith("f.csv line 2: t:0 appears twice (first on line 1)");
        assertThatThrownBy(() -> OffsetsFile.parse("f.csv", "\n# nothing\n")).hasMessageContaining("has no offsets");
    }

    @Test
    void jsonErrorsNameTheLine() {
        String json = "{\"group\":\"g\",\"offsets\":[\n  {\"topic\":\"t\",\"partition\":0,\"offset\":1},\n"
                + "  {\"topic\":\"t\",\"partition\":1,\"offset\":-3}\n]}";
        assertThatThrownBy(() -> OffsetsFile.parse("f.json", json))
                .hasMessageStartingWith("f.json line 3: offset must be >= 0, was -3");
        assertThatThrownBy(
                        () -> OffsetsFile.parse(
                                "f.json",
                                "{\"offsets\":[\n{\"topic\":\"t\",\"partition\":0,\"offset\":1},\n{\"topic\":\"t\" \"partition\":1}]}"))
                .hasMessageStartingWith("f.json line 3: not valid JSON");
        assertThatThrownBy(() -> OffsetsFile.parse("f.json", "{\"offsets\":[\n{\"topic\":\"t\",\"offset\":1}]}"))
                .hasMessageStartingWith("f.json line 2: entry needs \"topic\", \"partition\" and \"offset\"");
        assertThatThrownBy(() -> OffsetsFile.parse(
                        "f.json", "{\"offsets\":[\n{\"topic\":\"t\",\"partition\":0,\"offset\":\"7\"}]}"))
                .hasMessageStartingWith("f.json line 2: \"offset\" must be an integer");
        assertThatThrownBy(() -> OffsetsFile.parse("f.json", "{\"group\":\"g\"}"))
                .hasMessageContaining("no \"offsets\" array");
    }

    @Test
    void aKeyGivenTwiceInAJsonEntryIsAnErrorNamingItsLine() {
        assertThatThrownBy(() -> OffsetsFile.parse(
                        "f.json",
                        "{\"offsets\":[\n{\"topic\":\"t\",\"partition\":0,\"offset\":1},\n"
                                + "{\"topic\":\"t\",\"partition\":1,\"offset\":3,\"offset\":9}]}"))
                .isInstanceOf(AdminException.class)
                .hasMessageStartingWith("f.json line 3: not valid JSON: Duplicate field 'offset'");
        assertThatThrownBy(() -> OffsetsFile.parse("f.json", "{\"group\":\"a b\",\"offsets\":[]}"))
                .hasMessageStartingWith("f.json line 1: \"group\" must be a group id, was a b");
    }
}
