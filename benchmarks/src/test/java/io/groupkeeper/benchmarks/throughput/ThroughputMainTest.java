package io.groupkeeper.benchmarks.throughput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

class ThroughputMainTest {

    @Test
    void contenderSetsExpandAndEveryNameIsKnownAndAnUnknownNameFails() {
        assertThat(ThroughputMain.contenders("consume"))
                .containsExactly(
                        "kafka-poll",
                        "coordinated-poll",
                        "container",
                        "spring-record",
                        "spring-annotated",
                        "starter-annotated");
        assertThat(ThroughputMain.contenders("eos"))
                .containsExactly(
                        "gk-plain",
                        "gk-eos-poll",
                        "gk-eos-100ms",
                        "container-eos-poll",
                        "container-eos-100ms",
                        "spring-eos-batch");
        assertThat(ThroughputMain.contenders("container,spring-eos-batch"))
                .containsExactly("container", "spring-eos-batch");
        assertThat(ThroughputMain.CONTENDERS.keySet())
                .containsExactlyInAnyOrderElementsOf(
                        List.of((ThroughputMain.CONSUME + "," + ThroughputMain.EOS + ",spring-eos-record").split(",")));
        assertThatThrownBy(() -> ThroughputMain.contenders("container,spring-kafka"))
                .hasMessageContaining("unknown contender spring-kafka");
    }

    @Test
    void producerPropertiesParseAndAMalformedOneFails() {
        assertThat(ThroughputMain.keyValues("")).isEmpty();
        assertThat(ThroughputMain.keyValues("retry.backoff.ms=10, linger.ms=0"))
                .isEqualTo(Map.of("retry.backoff.ms", "10", "linger.ms", "0"));
        assertThatThrownBy(() -> ThroughputMain.keyValues("linger.ms")).hasMessageContaining("k=v");
    }

    /** One tiny run of every contender but Spring's record-per-transaction one (seconds per hundred records). */
    @Test
    @Tag("long") // ~1 min: servers, a Spring context, transactional producers
    void aTinyRunOfEveryContenderPrintsARowForEach() throws Exception {
        List<String> names = ThroughputMain.CONTENDERS.keySet().stream()
                .filter(n -> !n.equals("spring-eos-record"))
                .sorted()
                .toList();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = System.out;
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            ThroughputMain.main(new String[] {
                "--contenders",
                String.join(",", names),
                "--baseline",
                "kafka-poll",
                "--records",
                "2000",
                "--rounds",
                "1",
                "--warmups",
                "0"
            });
        } finally {
            System.setOut(out);
        }
        String console = bytes.toString(StandardCharsets.UTF_8);
        for (String name : names) {
            assertThat(console).containsPattern("\\| " + name + " \\| [0-9,]+ \\(");
        }
        assertThat(console).contains("| kafka-poll | ").contains("| 1.00 (1.00–1.00) |");
    }
}
