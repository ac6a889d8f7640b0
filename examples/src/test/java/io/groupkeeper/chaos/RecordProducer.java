package io.groupkeeper.chaos;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes numbered records ({@code "r-<n>"}; with {@link #keyed()} under key {@code "k<n mod 31>"}, else no key) round-robin over the topic's current partitions at a steady rate, so
 * partitions added during the run get records too. The checker judges by offsets (the log end of each partition at the
 * end), so a send that fails is harmless; failures are counted.
 */
final class RecordProducer implements AutoCloseable {

    private final KafkaProducer<String, String> producer;
    private final String topic;
    private final IntSupplier partitions;
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "chaos-producer");
        t.setDaemon(true);
        return t;
    });
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private volatile boolean keyed;

    RecordProducer(String bootstrap, String topic, IntSupplier partitions) {
        this.producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ProducerConfig.ACKS_CONFIG,
                        "all",
                        ProducerConfig.LINGER_MS_CONFIG,
                        5,
                        // Not idempotent: a retried batch may land twice, which is harmless here (the checker counts
                        // offsets),
                        // and a sequence-number mix-up after a leadership blip cannot wedge the producer for its 120 s
                        // timeout.
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                        false,
                        ProducerConfig.MAX_BLOCK_MS_CONFIG,
                        30_000),
                new StringSerializer(),
                new StringSerializer());
        this.topic = topic;
        this.partitions = partitions;
    }

    /**
     * Gives every record a key ({@link #key}), for the per-key order check. Off by default: tests that store by key
     * when there is one and by offset otherwise (the zombie example's sink) need records without keys.
     */
    RecordProducer keyed() {
        this.keyed = true;
        return this;
    }

    /** Sends {@code perTick} records every {@code tickMillis}. */
    RecordProducer start(int perTick, long tickMillis) {
        ticker.scheduleAtFixedRate(
                () -> {
                    int n = partitions.getAsInt();
                    for (int i = 0; i < perTick; i++) {
                        long seq = sent.getAndIncrement();
                        producer.send(
                                new ProducerRecord<>(topic, (int) (seq % n), keyed ? key(seq) : null, "r-" + seq),
                                (md, e) -> {
                                    if (e != null) {
                                        failed.incrementAndGet();
                                    }
                                });
                    }
                },
                0,
                tickMillis,
                TimeUnit.MILLISECONDS);
        return this;
    }

    /**
     * The key of record {@code seq}: one of {@link #KEYS}, a prime, so that every partition (round-robin over at most
     * 24) gets every key, each again every {@value #KEYS} records of the partition — what the per-key order check
     * judges under the {@code KEY} ordering.
     */
    static String key(long seq) {
        return "k" + (seq % KEYS);
    }

    static final int KEYS = 31;

    /** Stops producing and waits until everything sent is acknowledged (or failed). */
    void stop() throws InterruptedException {
        ticker.shutdown();
        ticker.awaitTermination(30, TimeUnit.SECONDS);
        producer.flush();
    }

    long sent() {
        return sent.get();
    }

    long failed() {
        return failed.get();
    }

    @Override
    public void close() throws InterruptedException {
        stop();
        producer.close(Duration.ofSeconds(10));
    }
}
