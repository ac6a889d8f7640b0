package io.groupkeeper.benchmarks.parallel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.groupkeeper.benchmarks.support.Json;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One tiny run of {@link ParallelMain} completes: every contender measured, the scale-out counted, the child JVM gone. */
@Tag("long") // ~1 minute on 2 cores: out of the default run (mvn -pl benchmarks -am verify -Plong)
class ParallelHarnessSmokeTest {

    @TempDir
    Path dir;

    @Test
    void tinyRunMeasuresEveryContenderAndTheScaleOut() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Path file = ParallelMain.run(
                new String[] {
                    "--partitions",
                    "1",
                    "--keys",
                    "8",
                    "--seconds",
                    "1",
                    "--rounds",
                    "1",
                    "--warmups",
                    "0",
                    "--workers",
                    "8",
                    "--handler-ms",
                    "2",
                    "--contenders",
                    "kafka-loop,pc-key,gk-partition,gk-key,gk-unordered",
                    "--scale-out",
                    "pc-key,gk-key",
                    "--scale-out-records",
                    "600",
                    "--out",
                    dir.toString()
                },
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String output = bytes.toString(StandardCharsets.UTF_8);
        String[] lines = output.strip().split("\n");
        assertThat(lines[lines.length - 1])
                .as(output)
                .startsWith("summary: p1-k8 ")
                .contains("gk-key=")
                .contains("pc-key=")
                .contains("scale-out processed twice: pc-key=")
                .contains("zk tx/s p1-k8: gk-partition=");
        assertThat(output.lines().filter(l -> l.startsWith("{\"scenario\":\""))).hasSize(5 + 2);

        JsonNode doc = Json.read(file);
        assertThat(doc.path("results")).hasSize(5);
        for (JsonNode r : doc.path("results")) {
            assertThat(r.path("recordsPerSec").asDouble()).as(r.toString()).isPositive();
            assertThat(r.path("orderViolations").asLong()).as(r.toString()).isZero();
            assertThat(r.has("zkTransactionsPerSec"))
                    .as(r.toString())
                    .isEqualTo(r.path("contender").asText().startsWith("gk-"));
        }
        for (JsonNode s : doc.path("scaleOut")) {
            assertThat(s.path("complete").asBoolean()).as(s.toString()).isTrue();
            assertThat(s.path("unique").asLong()).as(s.toString()).isEqualTo(600);
            assertThat(s.path("processedByFirst").asLong()
                            + s.path("processedBySecond").asLong())
                    .as(s.toString())
                    .isEqualTo(s.path("processed").asLong());
        }
        assertThat(doc.path("scaleOut").get(1).path("processedTwice").asLong())
                .as("groupkeeper's graceful handover replays nothing")
                .isZero();
        JsonNode done = doc.path("doneValue");
        assertThat(done.path("boundChars").asInt()).as(done.toString()).isPositive();
        assertThat(done.path("largestChars").asInt())
                .as("groupkeeper's contenders were watched; within the bound")
                .isBetween(0, done.path("boundChars").asInt());
        assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive))
                .as("parallel-consumer's JVMs end with their runs")
                .isEmpty();

        assertThatThrownBy(() -> Contenders.parse("gk-key,nope"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown contender 'nope'")
                .hasMessageContaining("pc-unordered");
    }
}
