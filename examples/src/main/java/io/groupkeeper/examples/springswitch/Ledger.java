package io.groupkeeper.examples.springswitch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What a listener service received, one line per delivery ({@code <partition> <offset> <value>}), appended to a file
 * and flushed at once, so that the command reads it while the service runs and after it is stopped.
 */
public final class Ledger implements AutoCloseable {

    private final Writer out;

    public Ledger(Path file) {
        try {
            out = Files.newBufferedWriter(
                    file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the ledger " + file, e);
        }
    }

    /** Records one delivery. */
    public synchronized void received(ConsumerRecord<?, ?> record) {
        try {
            out.write(record.partition() + " " + record.offset() + " " + record.value() + "\n");
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the ledger", e);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
