package io.groupkeeper.benchmarks.rebalance;

import io.groupkeeper.embedded.EmbeddedKafka;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The producer that runs throughout a side-by-side run, so that "fetched" means the first record delivered from a
 * partition after the event on both sides: every {@code intervalMs} one small record to each partition, with
 * {@code linger.ms=0} so records reach the broker at once.
 */
public final class RecordProducer implements AutoCloseable {

    private final KafkaProducer<byte[], byte[]> producer;
    private final Thread thread;
    private final AtomicLong sent = new AtomicLong();
    private volatile boolean running = true;

    public RecordProducer(EmbeddedKafka kafka, String topic, int partitions, long intervalMs) {
        Map<String, Object> props = kafka.clientProperties();
        props.put("key.serializer", ByteArraySerializer.class);
        props.put("value.serializer", ByteArraySerializer.class);
        props.put("linger.ms", 0);
        props.put("client.id", "bench-producer");
        producer = new KafkaProducer<>(props);
        byte[] value = new byte[16];
        thread = new Thread(
                () -> {
                    long next = System.nanoTime();
                    while (running) {
                        for (int p = 0; p < partitions; p++) {
                            producer.send(new ProducerRecord<>(topic, p, null, value));
                        }
                        sent.addAndGet(partitions);
                        next += intervalMs * 1_000_000L;
                        long wait = next - System.nanoTime();
                        if (wait > 0) {
                            LockSupport.parkNanos(wait);
                        } else {
                            next = System.nanoTime();
                        }
                    }
                },
                "bench-producer");
        thread.setDaemon(true);
        thread.start();
    }

    public long sent() {
        return sent.get();
    }

    @Override
    public void close() {
        running = false;
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close();
    }
}
