package io.groupkeeper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.groupkeeper.TopicPartition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every reset spec on real ZooKeeper and Kafka: the dry run prints current -> new per partition and writes nothing;
 * --execute writes exactly the plan; targets outside the log are clamped and the clamp is shown.
 *
 * <p>The topic has 3 partitions of 10 records (offsets 0..9, log end 10); record i has timestamp now - (10 - i) * 10 min;
 * partition 0's log starts at 2 (records deleted). Each test's group starts with p0 = 5, p1 = 6, p2 = no offset.
 */
class ResetIT extends CliTestSupport {

    private static String topic;
    private static Instant now0;
    private String group;

    @BeforeAll
    static void data() throws Exception {
        topic = unique("rs");
        topic(topic, 3);
        now0 = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        for (int p = 0; p < 3; p++) {
            produce(
                    topic,
                    p,
                    10,
                    i -> now0.minus((10 - i) * 10L, ChronoUnit.MINUTES).toEpochMilli());
        }
        deleteRecordsBefore(topic, 0, 2);
    }

    @BeforeEach
    void group() throws Exception {
        group = unique("reset");
        seed(group, Map.of(tp(0), 5L, tp(1), 6L));
    }

    private static TopicPartition tp(int p) {
        return new TopicPartition(topic, p);
    }

    /** Runs the reset as a dry run (asserting nothing is written), then with --execute; returns the dry run's output. */
    private String dryRunThenExecute(String... args) throws Exception {
        List<String> dry = new ArrayList<>(List.of("offsets", "reset", "--group", group));
        dry.addAll(Arrays.asList(args));
        Map<String, String> before = snapshot(groupPath(group));
        String out = gkb(dry.toArray(String[]::new)).ok();
        assertThat(out).contains("Plan: reset of group " + group).contains("Dry run: nothing written");
        assertThat(snapshot(groupPath(group))).as("the dry run wrote nothing").isEqualTo(before);
        dry.add("--execute");
        String done = gkb(dry.toArray(String[]::new)).ok();
        assertThat(done).contains("Applied reset of group " + group).contains("in one ZooKeeper transaction");
        return out;
    }

    private void assertStored(Long p0, Long p1, Long p2) throws Exception {
        Long[] expected = {p0, p1, p2};
        for (int p = 0; p < 3; p++) {
            if (expected[p] == null) {
                assertThat(stored(group, tp(p))).as("partition %d", p).isEmpty();
            } else {
                assertThat(stored(group, tp(p))).as("partition %d", p).hasValue(expected[p]);
            }
        }
    }

    @Test
    void toEarliest() throws Exception {
        String plan = dryRunThenExecute("--all-topics", "--to-earliest");
        assertThat(row(plan, topic, 0)).startsWith(topic, "0", "5", "2");
        assertThat(row(plan, topic, 1)).startsWith(topic, "1", "6", "0");
        assertThat(row(plan, topic, 2)).startsWith(topic, "2", "-", "0");
        assertStored(2L, 0L, 0L);
    }

    @Test
    void toLatest() throws Exception {
        String plan = dryRunThenExecute("--topic", topic, "--to-latest");
        assertThat(row(plan, topic, 0)).startsWith(topic, "0", "5", "10");
        assertStored(10L, 10L, 10L);
    }

    @Test
    void toCurrentKeepsCommittedOffsetsAndStartsUncommittedPartitionsAtTheLogEnd() throws Exception {
        String plan = dryRunThenExecute("--all-topics", "--to-current");
        assertThat(row(plan, topic, 0)).startsWith(topic, "0", "5", "5");
        assertThat(row(plan, topic, 2)).containsExactly(topic, "2", "-", "10", "-", "no committed offset: log end");
        assertStored(5L, 6L, 10L);
    }

    @Test
    void toOffsetOfSomePartitionsClampedAtBothEnds() throws Exception {
        String plan = dryRunThenExecute("--topic", topic + ":0,2", "--to-offset", "1");
        assertThat(row(plan, topic, 0)).containsExactly(topic, "0", "5", "2", "-", "clamped from 1 to log start 2");
        assertThat(row(plan, topic, 2)).containsExactly(topic, "2", "-", "1", "-", "-");
        assertThat(plan).doesNotContain(topic + "  1 ");
        assertStored(2L, 6L, 1L);

        String high = dryRunThenExecute("--topic", topic + ":1", "--to-offset", "7000");
        assertThat(row(high, topic, 1)).containsExactly(topic, "1", "6", "10", "-", "clamped from 7000 to log end 10");
        assertStored(2L, 10L, 1L);
    }

    @Test
    void shiftByMovesFromTheCommittedOffsetAndIsClamped() throws Exception {
        String back = dryRunThenExecute("--all-topics", "--shift-by", "-3");
        assertThat(row(back, topic, 0)).containsExactly(topic, "0", "5", "2", "-", "-");
        assertThat(row(back, topic, 1)).startsWith(topic, "1", "6", "3");
        assertThat(row(back, topic, 2))
                .containsExactly(topic, "2", "-", "(unchanged)", "-", "skipped: no committed offset to shift");
        assertStored(2L, 3L, null);

        String far = dryRunThenExecute("--all-topics", "--shift-by", "+100");
        assertThat(row(far, topic, 0)).containsExactly(topic, "0", "2", "10", "-", "clamped from 102 to log end 10");

        String below = dryRunThenExecute("--all-topics", "--shift-by", "-50");
        assertThat(row(below, topic, 0)).containsExactly(topic, "0", "10", "2", "-", "clamped from -40 to log start 2");
        assertThat(row(below, topic, 1)).containsExactly(topic, "1", "10", "0", "-", "clamped from -40 to log start 0");
        assertStored(2L, 0L, null);
    }

    @Test
    void toDatetimeInLocalTimeFindsTheFirstRecordAtOrAfterIt() throws Exception {
        Instant record4 = now0.minus(60, ChronoUnit.MINUTES);
        String local = LocalDateTime.ofInstant(record4, ZoneId.systemDefault())
                .format(DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS"));
        String plan = dryRunThenExecute("--all-topics", "--to-datetime", local);
        assertThat(row(plan, topic, 1)).startsWith(topic, "1", "6", "4");
        assertStored(4L, 4L, 4L);

        String after = dryRunThenExecute(
                "--topic", topic + ":2", "--to-datetime", now0.plusSeconds(60).toString());
        assertThat(row(after, topic, 2))
                .containsExactly(topic, "2", "4", "10", "-", "no record at or after that time: log end");
    }

    @Test
    void byDurationGoesBackFromNow() throws Exception {
        // Records are 10 minutes apart, the last one 10 minutes ago: 35 minutes back starts at record 7.
        String plan = dryRunThenExecute("--all-topics", "--by-duration", "PT35M");
        assertThat(plan).contains("note: --by-duration PT35M: records from ");
        assertThat(row(plan, topic, 0)).startsWith(topic, "0", "5", "7");
        assertStored(7L, 7L, 7L);
    }

    @Test
    void fromFileTakesEachPartitionsOffsetClampedAndFilteredByTopic(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("targets.csv");
        Files.writeString(file, topic + ",0,3\n" + topic + ",1,99\n");
        String plan = dryRunThenExecute("--from-file", file.toString());
        assertThat(row(plan, topic, 0)).startsWith(topic, "0", "5", "3");
        assertThat(row(plan, topic, 1)).containsExactly(topic, "1", "6", "10", "-", "clamped from 99 to log end 10");
        assertThat(plan).doesNotContain(topic + "  2");
        assertStored(3L, 10L, null);

        Files.writeString(file, topic + ",0,4\n" + topic + ",1,5\n");
        String filtered = dryRunThenExecute("--from-file", file.toString(), "--topic", topic + ":1");
        assertThat(filtered).contains("1 entries of " + file + " are outside --topic " + topic + ":1 and are ignored");
        assertStored(3L, 5L, null);
    }

    @Test
    void thePlanAsJson() throws Exception {
        String out = gkb(
                        "offsets",
                        "reset",
                        "--group",
                        group,
                        "--topic",
                        topic + ":0",
                        "--to-offset",
                        "0",
                        "--output",
                        "json")
                .ok();
        JsonNode plan = new ObjectMapper().readTree(out);
        assertThat(plan.get("executed").asBoolean()).isFalse();
        assertThat(plan.get("spec").asText()).isEqualTo("--to-offset 0");
        JsonNode p0 = plan.get("partitions").get(0);
        assertThat(p0.get("current").asLong()).isEqualTo(5);
        assertThat(p0.get("requested").asLong()).isEqualTo(0);
        assertThat(p0.get("new").asLong()).isEqualTo(2);
        assertThat(p0.get("clamped").asText()).isEqualTo("log-start");
        assertThat(p0.get("logStart").asLong()).isEqualTo(2);
        assertThat(p0.get("logEnd").asLong()).isEqualTo(10);
        assertStored(5L, 6L, null);
    }

    @Test
    void withoutBootstrapTargetsAreNotClampedAndThePlanSaysSo() throws Exception {
        String out = gk("offsets", "reset", "--group", group, "--all-topics", "--to-offset", "7000", "--execute")
                .ok();
        assertThat(out).contains("note: log bounds unknown (no --bootstrap): targets are not clamped to the log");
        assertThat(row(out, topic, 0)).startsWith(topic, "0", "5", "7000");
        assertStored(7000L, 7000L, 7000L);
    }
}
