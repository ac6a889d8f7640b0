package io.groupkeeper.examples;

import io.groupkeeper.kafka.CoordinatedConsumer;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * A consumer loop that writes what it processes to a {@link FencedSink}, each write stamped with the fencing token of
 * the claim its batch was read under ({@link FencingTokens}). When the sink refuses a write, the partition has a newer
 * owner: the rest of this batch of it is dropped (the next {@code poll()} reports the partition lost); other
 * partitions of the batch go on.
 */
public final class FencedSinkLoop implements Runnable {

    /** User code: what to write for a record (the value stored under the record's key, or its offset). */
    @FunctionalInterface
    public interface Processor {
        String process(ConsumerRecord<String, String> record) throws InterruptedException;
    }

    private final CoordinatedConsumer<String, String> consumer;
    private final FencingTokens tokens;
    private final FencedSink<TopicPartition> sink;
    private final Processor processor;
    private final AtomicLong written = new AtomicLong();
    private final List<StaleWriteException> refusals = new CopyOnWriteArrayList<>();
    private volatile boolean stop;

    public FencedSinkLoop(
            CoordinatedConsumer<String, String> consumer,
            FencingTokens tokens,
            FencedSink<TopicPartition> sink,
            Processor processor) {
        this.consumer = consumer;
        this.tokens = tokens;
        this.sink = sink;
        this.processor = processor;
    }

    @Override
    public void run() {
        try {
            while (!stop) {
                ConsumerRecords<String, String> batch;
                try {
                    batch = consumer.poll(Duration.ofMillis(100));
                } catch (WakeupException e) {
                    continue;
                }
                for (TopicPartition tp : batch.partitions()) {
                    // The token is taken once per batch, now that poll() returned it, and every write of the batch
                    // carries it — never read again at write time: a batch held for long (a pause, a cut network)
                    // must still carry its own claim's token, however the member's live token moved meanwhile.
                    OptionalLong token = tokens.of(tp);
                    if (token.isEmpty()) {
                        continue; // not served under a claim (lost as it was assigned): nothing of it may be written
                    }
                    writeAll(tp, token.getAsLong(), batch.records(tp));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void writeAll(TopicPartition tp, long token, List<ConsumerRecord<String, String>> records)
            throws InterruptedException {
        for (ConsumerRecord<String, String> r : records) {
            String value = processor.process(r);
            String key = r.key() != null ? r.key() : Long.toString(r.offset());
            try {
                sink.write(tp, token, key, value);
                written.incrementAndGet();
            } catch (StaleWriteException e) {
                refusals.add(e);
                return; // someone else owns tp now: the rest of this batch of it is theirs to write
            }
        }
    }

    /** Ends the loop (from any thread); the caller closes the consumer afterwards. */
    public void stop() {
        stop = true;
        consumer.wakeup();
    }

    /** Writes the sink accepted from this loop. */
    public long written() {
        return written.get();
    }

    /** Writes the sink refused from this loop, in order. */
    public List<StaleWriteException> refusals() {
        return List.copyOf(refusals);
    }
}
