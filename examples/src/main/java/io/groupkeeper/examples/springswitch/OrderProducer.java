package io.groupkeeper.examples.springswitch;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/** Produces numbered orders ({@code order-N}, key {@code customer-N%50}) at a steady rate on a thread of its own. */
final class OrderProducer implements AutoCloseable {

    private final KafkaProducer<String, String> producer;
    private final String topic;
    private final long intervalNanos;
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final Thread thread;
    private volatile boolean running = true;

    OrderProducer(String bootstrap, String topic, int perSecond, boolean singleBroker) {
        Map<String, Object> props = new HashMap<>(Map.of("bootstrap.servers", bootstrap, "linger.ms", 0));
        if (singleBroker) {
            // One broker: acks=1 is as durable as acks=all (and avoids the idempotent producer's wedge after topic
            // creation that ProduceCommand describes). A retried send may append a record twice: the counts are by
            // the log's offsets, so such a record is one more record to receive, never a redelivery.
            props.put("acks", "1");
            props.put("enable.idempotence", false);
            props.put("max.in.flight.requests.per.connection", 1);
        }
        this.producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
        this.topic = topic;
        this.intervalNanos = TimeUnit.SECONDS.toNanos(1) / perSecond;
        this.thread = new Thread(this::produce, "switch-producer");
    }

    void start() {
        thread.start();
    }

    long acknowledged() {
        return acknowledged.get();
    }

    private void produce() {
        long next = System.nanoTime();
        for (long n = 0; running; n++) {
            producer.send(new ProducerRecord<>(topic, "customer-" + n % 50, "order-" + n), (md, e) -> {
                if (e == null) {
                    acknowledged.incrementAndGet();
                } else {
                    failure.compareAndSet(null, e);
                }
            });
            next += intervalNanos;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(wait); // the production rate, not synchronisation
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** Stops producing, waits for the outstanding sends; a failed send is reported (the counts are by the log). */
    @Override
    public void close() throws InterruptedException {
        if (thread.isAlive() || running) {
            running = false;
            thread.join();
            producer.flush();
            producer.close(Duration.ofSeconds(10));
            if (failure.get() != null) {
                System.err.println("warning: a send failed: " + failure.get());
            }
        }
    }
}
