package io.groupkeeper.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 45, "the switch from a live {@code @KafkaListener} service to the starter": {@code switch-from-spring} as a
 * user runs it (its own JVM, which starts the two Spring Boot services in theirs), records produced throughout; the
 * Spring Kafka service consumes, is stopped, the starter's takes the group over. Redelivered 0, lost 0, both services
 * received records, and the starter took Kafka's offsets of every partition. Without the takeover
 * ({@code groupkeeper.listener.take-over-kafka-offsets=false}) the same run counts redeliveries: the check is not vacuous
 * (see {@link #withoutTheTakeoverTheCountShowsRedeliveries}, tagged {@code long}: {@code mvn -Plong}, as it repeats the
 * main case's minute of JVM starts to prove the count can fail).
 */
class SwitchFromSpringIT {

    private static final Pattern COUNTS = Pattern.compile("redelivered=(\\d+) lost=(\\d+)");
    private static final Pattern DELIVERIES = Pattern.compile(
            "records in the log (\\d+); deliveries: spring-kafka service (\\d+), groupkeeper service (\\d+)");

    @Test
    void aLiveSpringKafkaServiceMovesToTheStarterWithNothingRedeliveredOrLost(@TempDir Path work) throws Exception {
        Run run = run(work, List.of());
        assertThat(run.exit).as(run.output).isZero();
        Matcher counts = COUNTS.matcher(run.output);
        assertThat(counts.find()).as(run.output).isTrue();
        assertThat(counts.group(1) + "/" + counts.group(2))
                .as("redelivered/lost")
                .isEqualTo("0/0");
        Matcher deliveries = DELIVERIES.matcher(run.output);
        assertThat(deliveries.find()).as(run.output).isTrue();
        long inLog = Long.parseLong(deliveries.group(1));
        long spring = Long.parseLong(deliveries.group(2));
        long groupkeeper = Long.parseLong(deliveries.group(3));
        assertThat(spring).as("the Spring Kafka service received records").isPositive();
        assertThat(groupkeeper).as("the groupkeeper service received records").isPositive();
        assertThat(spring + groupkeeper).as("every record once").isEqualTo(inLog);
        assertThat(run.output)
                .contains(
                        "took over Kafka's committed offsets of group switch-it-group",
                        "switch-it-orders-0=",
                        "switch-it-orders-1=",
                        "switch-it-orders-2=");
    }

    @Test
    @Tag("long")
    void withoutTheTakeoverTheCountShowsRedeliveries(@TempDir Path work) throws Exception {
        Run run = run(work, List.of("--service-property", "groupkeeper.listener.take-over-kafka-offsets=false"));
        assertThat(run.exit).as(run.output).isEqualTo(1);
        Matcher counts = COUNTS.matcher(run.output);
        assertThat(counts.find()).as(run.output).isTrue();
        assertThat(Long.parseLong(counts.group(1)))
                .as("redelivered: from earliest again")
                .isPositive();
    }

    private record Run(int exit, String output) {}

    private static Run run(Path work, List<String> extra) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                classpath(),
                "io.groupkeeper.examples.Main",
                "switch-from-spring",
                "--topic",
                "switch-it-orders",
                "--group",
                "switch-it-group",
                "--spring-ms",
                "2000",
                "--after-ms",
                "1000",
                "--work-dir",
                work.toString()));
        cmd.addAll(extra);
        Path out = work.resolve("command.out");
        Files.createDirectories(work);
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        p.getOutputStream().close();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("switch-from-spring did not end in 10 min:\n" + Files.readString(out));
        }
        return new Run(p.exitValue(), Files.readString(out));
    }

    /** The test's runtime class path without the test classes (the services log by the examples' logback.xml). */
    private static String classpath() {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        return Arrays.stream(cp.split(File.pathSeparator))
                .filter(e -> !e.endsWith("test-classes") && !e.endsWith("test-classes/"))
                .collect(Collectors.joining(File.pathSeparator));
    }
}
