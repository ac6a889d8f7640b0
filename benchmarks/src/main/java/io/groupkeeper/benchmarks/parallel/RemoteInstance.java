package io.groupkeeper.benchmarks.parallel;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A contender instance in a JVM of its own ({@link PcChild}), with {@code firstJar} (kafka-clients 3.9.1) ahead of
 * this JVM's class path, against the same broker; its handler's start and end events replayed into this JVM's
 * {@link Tally} as they arrive. {@link #close} asks it to close and waits for it to exit.
 */
final class RemoteInstance implements Instance {

    private final Process process;
    private final Writer stdin;
    private final Thread reader;

    RemoteInstance(Path firstJar, Path log, Tally tally, List<String> childArgs) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms256m",
                "-Xmx512m",
                "-cp",
                firstJar + File.pathSeparator + System.getProperty("java.class.path"),
                PcChild.class.getName()));
        command.addAll(childArgs);
        process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        reader = new Thread(() -> read(tally), "pc-jvm-events");
        reader.setDaemon(true);
        reader.start();
    }

    private void read(Tally tally) {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.length() < 4 || line.charAt(0) != '#') {
                    continue;
                }
                String[] f = line.split(" ");
                int partition = Integer.parseInt(f[1]);
                long offset = Long.parseLong(f[2]);
                switch (f[0]) {
                    case "#S" -> tally.start(partition, offset, f[3]);
                    case "#E" -> tally.end(partition, offset, f[3], true);
                    case "#X" -> tally.end(partition, offset, f[3], false);
                    default -> {}
                }
            }
        } catch (IOException e) {
            // the child is gone; close() reports how it ended
        }
    }

    @Override
    public void close() throws Exception {
        try {
            stdin.write("close\n");
            stdin.flush();
        } catch (IOException e) {
            // already exited
        }
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        reader.join(TimeUnit.SECONDS.toMillis(10));
    }
}
