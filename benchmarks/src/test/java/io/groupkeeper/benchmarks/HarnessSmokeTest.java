package io.groupkeeper.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.groupkeeper.assignor.Assignment;
import io.groupkeeper.assignor.AssignmentInput;
import io.groupkeeper.assignor.Assignors;
import io.groupkeeper.benchmarks.capacity.CommitCapacityMain;
import io.groupkeeper.benchmarks.chart.ChartMain;
import io.groupkeeper.benchmarks.chart.TrafficChart;
import io.groupkeeper.benchmarks.jmh.AssignorBenchmark;
import io.groupkeeper.benchmarks.rebalance.SideBySideMain;
import io.groupkeeper.benchmarks.scale.ScaleHarness;
import io.groupkeeper.benchmarks.scale.ScaleMain;
import io.groupkeeper.benchmarks.support.Json;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmarks are not run by {@code mvn verify}; this checks that one tiny run of each harness completes and
 * produces sane, complete output (seconds, not minutes).
 */
@Tag("long") // ~30 s: out of the default run to keep it near 10 minutes (mvn -pl benchmarks -am verify -Plong)
class HarnessSmokeTest {

    @TempDir
    Path dir;

    @Test
    void sideBySideWithZooKeeperInItsOwnJvmMeasuresAndStopsTheChildJvm() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SideBySideMain.run(
                new String[] {
                    "--no-kafka",
                    "--zk-jvm",
                    "--scenarios",
                    "a",
                    "--gk-reps",
                    "1",
                    "--gk-warmups",
                    "1",
                    "--max-warmups",
                    "1",
                    "--idle-ms",
                    "300",
                    "--out",
                    dir.toString()
                },
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String output = bytes.toString(StandardCharsets.UTF_8);
        JsonNode doc = Json.read(dir.resolve("sidebyside.json"));
        assertThat(doc.has("error")).as(output).isFalse();
        assertThat(doc.path("zookeeper").asText()).isEqualTo("in a JVM of its own");
        JsonNode gk = doc.path("subjects").get(0);
        assertThat(gk.path("scenarios")
                        .path("scale-out")
                        .path("total")
                        .path("n")
                        .asInt())
                .isEqualTo(1);
        JsonNode idle = gk.path("idleTraffic").path("perMemberPerSecond");
        assertThat(idle.has("requests"))
                .as("ZooKeeper's packet count lives in the other JVM")
                .isFalse();
        assertThat(idle.has("reads")).as("the members' own counters stay").isTrue();
        assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive))
                .as("the ZooKeeper JVM ends with the run")
                .isEmpty();

        assertThatThrownBy(() -> SideBySideMain.run(
                        new String[] {"--no-kafka", "--zk-cpus", "0"},
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("add --zk-jvm");
    }

    @Test
    void sideBySideTinyRunMeasuresBothSidesAndPrintsTheSummaryLine() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SideBySideMain.run(
                new String[] {
                    "--scenarios",
                    "a",
                    "--settings",
                    "kafka-classic-hb500",
                    "--reps",
                    "1",
                    "--warmups",
                    "0",
                    "--gk-reps",
                    "2",
                    "--gk-warmups",
                    "1",
                    "--gkk-warmups",
                    "1",
                    "--max-warmups",
                    "2",
                    "--idle-ms",
                    "500",
                    "--out",
                    dir.toString()
                },
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String output = bytes.toString(StandardCharsets.UTF_8);
        String[] lines = output.strip().split("\n");
        assertThat(lines[lines.length - 1])
                .matches("scale-out p50: groupkeeper=[0-9.]+ kafka-best=[0-9.]+ ratio=[0-9.]+");

        JsonNode doc = Json.read(dir.resolve("sidebyside.json"));
        assertThat(doc.has("error")).as(output).isFalse();
        JsonNode subjects = doc.path("subjects");
        assertThat(subjects).hasSize(3);
        // The host's CPU by kind (steal, iowait) over the run and each subject, where Linux tells it.
        if (Files.isReadable(Path.of("/proc/stat"))) {
            assertThat(output).contains("host CPU over the run: steal ");
            assertThat(doc.path("hostCpu").path("busyPct").asDouble())
                    .as("the run used CPU")
                    .isPositive();
            assertThat(subjects.get(0).path("hostCpu").has("stealPct")).isTrue();
            // The printed warning and the JSON's flag agree, whichever side of the threshold this machine is on.
            assertThat(doc.path("hostCpu").path("noisy").isBoolean()).isTrue();
            boolean anyNoisy = doc.findValues("noisy").stream().anyMatch(JsonNode::asBoolean);
            assertThat(output.contains("(noisy: steal above 2 %")).as(output).isEqualTo(anyNoisy);
        }

        JsonNode gk = subjects.get(0);
        assertThat(gk.path("key").asText()).isEqualTo("groupkeeper-zk");
        JsonNode gkScaleOut = gk.path("scenarios").path("scale-out");
        assertThat(gkScaleOut.path("total").path("n").asInt()).isEqualTo(2);
        assertThat(gkScaleOut.path("total").path("p50").asDouble()).isPositive();
        assertThat(gkScaleOut.path("overlaps").asInt()).isZero();
        int warmUps = gkScaleOut.path("warmUp").path("repetitions").asInt();
        assertThat(warmUps).as("at least the minimum, at most the cap").isBetween(1, 2);
        assertThat(gkScaleOut.path("warmUp").path("endedBy").asText()).isIn("jit-quiet", "cap");
        JsonNode firstRep = gkScaleOut.path("reps").get(0);
        assertThat(firstRep.path("gains").asInt())
                .as("the joiner gained partitions")
                .isGreaterThanOrEqualTo(3);
        assertThat(firstRep.path("zk").path("writes").asLong()).isPositive();
        assertThat(firstRep.path("publishMs").asDouble())
                .isBetween(0.0, firstRep.path("totalMs").asDouble());
        assertThat(firstRep.path("rep").asInt())
                .as("numbered after the dropped warm-ups")
                .isEqualTo(warmUps);
        assertThat(firstRep.path("jitMs").asDouble())
                .as("the JIT's compile time is recorded")
                .isGreaterThanOrEqualTo(0);
        assertThat(firstRep.path("windowMs").asDouble())
                .isGreaterThan(firstRep.path("totalMs").asDouble());
        // The JVM used CPU during the rebalance (servers and clients at least).
        assertThat(firstRep.path("cpuMs").asDouble())
                .as("process CPU from the event to the end")
                .isPositive();
        assertThat(firstRep.path("cpuBusy").asDouble()).isPositive();

        JsonNode gkk = subjects.get(1);
        assertThat(gkk.path("key").asText()).isEqualTo("groupkeeper-kafka");
        assertThat(gkk.path("status").asText()).isEqualTo("measured");
        JsonNode gkkScaleOut = gkk.path("scenarios").path("scale-out");
        assertThat(gkkScaleOut.path("total").path("n").asInt())
                .as("--gk-reps 2 applies to groupkeeper over Kafka")
                .isEqualTo(2);
        assertThat(gkkScaleOut.path("overlaps").asInt()).isZero();
        for (JsonNode rep : gkkScaleOut.path("reps")) {
            assertThat(rep.path("gains").asInt())
                    .as("the joiner gained partitions")
                    .isGreaterThanOrEqualTo(3);
            double total = rep.path("totalMs").asDouble();
            double owned = rep.path("ownedMs").asDouble();
            assertThat(rep.path("fetchMs").asDouble())
                    .as("the figure includes the first fetch")
                    .isGreaterThanOrEqualTo(0);
            assertThat(total).isGreaterThanOrEqualTo(owned).isPositive();
            assertThat(rep.path("zk").path("writes").asLong())
                    .as("member sessions are counted")
                    .isPositive();
            assertThat(rep.path("publishMs").asDouble()).isBetween(0.0, owned);
            JsonNode phases = rep.path("phasesMs");
            // zk-claimed races the polling thread's assign+seek by design (it can land just after owned), but it
            // must follow the publish; and a giver releases only after its polling thread served the revocation
            double publish = rep.path("publishMs").asDouble();
            assertThat(phases.path("zk-claimed").asDouble())
                    .as("the joiner's claims follow the publish")
                    .isGreaterThanOrEqualTo(publish)
                    .isLessThanOrEqualTo(total);
            assertThat(phases.path("revoked").asDouble())
                    .as("givers see the revocation after the publish")
                    .isGreaterThanOrEqualTo(publish);
            assertThat(phases.path("released").asDouble())
                    .as("release waits for the polling thread (I1)")
                    .isGreaterThanOrEqualTo(phases.path("revoked").asDouble());
            assertThat(phases.path("started").asDouble()).isBetween(0.0, owned);
        }

        JsonNode kafka = subjects.get(2);
        assertThat(kafka.path("key").asText()).isEqualTo("kafka-classic-hb500");
        JsonNode kScaleOut = kafka.path("scenarios").path("scale-out");
        assertThat(kScaleOut.path("total").path("n").asInt()).isEqualTo(1);
        assertThat(kScaleOut.path("overlaps").asInt()).isZero();
        JsonNode kRep = kScaleOut.path("reps").get(0);
        assertThat(kRep.path("fetchMs").asDouble())
                .as("Kafka's figure includes the first fetch")
                .isGreaterThanOrEqualTo(0);
        assertThat(kRep.path("totalMs").asDouble())
                .isGreaterThanOrEqualTo(kRep.path("ownedMs").asDouble());
        assertThat(doc.path("producedRecords").asLong()).isPositive();
        assertThat(doc.path("rttMs").asDouble()).isPositive();

        for (JsonNode subject : subjects) {
            JsonNode idle = subject.path("idleTraffic");
            assertThat(idle.path("members").asInt())
                    .as(subject.path("key").asText())
                    .isEqualTo(3);
            assertThat(idle.path("perMemberPerSecond").path("requests").asDouble())
                    .isGreaterThanOrEqualTo(0);
        }
        assertThat(kafka.path("idleTraffic")
                        .path("perMemberPerSecond")
                        .path("heartbeats")
                        .asDouble())
                .as("Kafka classic members heartbeat while idle")
                .isPositive();

        List<String> csv = Files.readAllLines(dir.resolve("sidebyside.csv"));
        assertThat(csv).hasSize(1 + 2 + 2 + 1);
        assertThat(csv.get(0)).startsWith("subject,system,scenario,rep,total_ms");

        String svg = ChartMain.render(dir);
        assertThat(svg)
                .startsWith("<svg")
                .contains("(a) scale-out")
                .contains("Kafka classic")
                .endsWith("</svg>\n");
        assertThat(TrafficChart.render(doc))
                .contains("Kafka classic")
                .contains("groupkeeper over Kafka")
                .contains("<circle")
                .endsWith("</svg>\n");
    }

    @Test
    void commitCapacityTinyRunFillsEveryCellOfTheTable() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<CommitCapacityMain.Row> rows = CommitCapacityMain.run(
                new String[] {
                    "--members",
                    "1,2",
                    "--partitions-per-member",
                    "2",
                    "--seconds",
                    "1",
                    "--warmup-seconds",
                    "0",
                    "--out",
                    dir.toString()
                },
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertThat(rows)
                .extracting(CommitCapacityMain.Row::system)
                .containsExactly("zookeeper-3", "zookeeper-3", "kafka", "kafka");
        assertThat(rows)
                .allSatisfy(
                        r -> assertThat(r.offsets()).isEqualTo(r.commits() * 2).isPositive());
        assertThat(Files.readString(dir.resolve("capacity.md")))
                .contains("3-node ensemble")
                .contains("commitSync");
    }

    @Test
    void scaleTinyRunCountsZooKeeperWorkPerJoin() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<ScaleHarness.Result> results = ScaleMain.run(
                null,
                List.of(new ScaleHarness.Size(4, 16)),
                2,
                2,
                60_000,
                dir,
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertThat(results).hasSize(1);
        ScaleHarness.Result r = results.get(0);
        assertThat(r.sessions()).isEqualTo(2);
        assertThat(r.joins()).hasSize(2);
        assertThat(r.overlaps()).isZero();
        for (ScaleHarness.Join j : r.joins()) {
            assertThat(j.totalMs()).isPositive();
            assertThat(j.publishMs()).isBetween(0.0, j.totalMs());
            assertThat(j.moved())
                    .as("the joiner takes its share of 16 partitions from 4 members")
                    .isEqualTo(3);
            assertThat(j.watchEvents()).isPositive();
            assertThat(j.writes()).isPositive();
        }
        assertThat(Files.readAllLines(dir.resolve("scale.csv"))).hasSize(3);
        assertThat(ChartMain.render(dir)).contains("one member joins a group of N");
    }

    @Test
    void assignorBenchmarkInputsAreTheDocumentedShapes() {
        for (String name : Assignors.names()) {
            var assignor = Assignors.byName(name);
            AssignmentInput join = AssignorBenchmark.input(assignor, 10, 100, true);
            assertThat(join.members()).hasSize(10);
            assertThat(join.current().byMember()).hasSize(9);
            assertThat(join.current().partitionCount()).isEqualTo(100);
            Assignment next = assignor.assign(join);
            assertThat(next.partitionCount()).isEqualTo(100);
            assertThat(AssignorBenchmark.input(assignor, 10, 100, false).current())
                    .isEqualTo(Assignment.empty());
        }
    }
}
