package io.groupkeeper.chaos;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * The examples' commands as separate JVMs, for the exactly-once runs: started with their output in log files, sent
 * signals ({@code SIGSTOP}/{@code SIGCONT} for a pause past the session timeout), stopped at the end; and the log ends
 * of the input, which the checks count against.
 */
final class ExampleProcesses {

    private ExampleProcesses() {}

    /** {@code java ... io.groupkeeper.examples.Main <command> <args>}, stdout and stderr in {@code logs/<name>.*}. */
    static Process start(String command, String name, Path logs, List<String> args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                ConsumerProcess.classpath(),
                "io.groupkeeper.examples.Main",
                command));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd)
                .redirectError(logs.resolve(name + ".stderr").toFile())
                .redirectOutput(logs.resolve(name + ".stdout").toFile())
                .start();
        p.getOutputStream().close();
        return p;
    }

    static void signal(Process p, String signal) throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid()))
                .inheritIO()
                .start()
                .waitFor();
    }

    /** Continues and stops (SIGTERM, then SIGKILL after 30 s) every process still alive. */
    static void stopAll(List<Process> processes) throws IOException, InterruptedException {
        for (Process p : processes) {
            if (p.isAlive()) {
                signal(p, "CONT");
                p.destroy();
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
    }

    /** The log end of each partition of {@code topic}. */
    static Map<Integer, Long> logEnds(Admin admin, String topic, int partitions) throws Exception {
        Map<TopicPartition, OffsetSpec> spec = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            spec.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<Integer, Long> ends = new HashMap<>();
        admin.listOffsets(spec)
                .all()
                .get(30, TimeUnit.SECONDS)
                .forEach((tp, info) -> ends.put(tp.partition(), info.offset()));
        return ends;
    }
}
