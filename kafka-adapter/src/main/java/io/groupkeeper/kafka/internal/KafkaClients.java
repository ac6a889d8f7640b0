package io.groupkeeper.kafka.internal;

import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * What the {@code CoordinatedConsumer} takes from outside groupkeeper: Kafka's clients (its consumer, the
 * transactional mode's producers, the few Admin questions it asks: {@link KafkaAdmin}), and the clock, the waits and
 * the threads of its own; the listener container takes the same from it (its workers' threads and handler pools, its
 * dead-letter producer and Admin, its watchdog's timer, its waits). {@link #REAL} (real clients, {@code System.nanoTime()}, real waits and threads) is what the
 * builder gives every user; kafka-adapter's simulation ({@code io.groupkeeper.kafka.sim}) supplies a model of Kafka
 * and the simulator's clock and threads, so that the shipped adapter runs in seeded schedules.
 */
public interface KafkaClients {

    /** Real clients, the system clock, real threads. */
    KafkaClients REAL = new Real();

    <K, V> Consumer<K, V> consumer(Map<String, Object> properties, Deserializer<K> keys, Deserializer<V> values);

    Producer<Object, Object> producer(
            Map<String, Object> properties, Serializer<Object> keys, Serializer<Object> values);

    /** An Admin client with these properties (created when first needed by its user). */
    KafkaAdmin admin(Map<String, Object> properties);

    /** A pool of {@code threads} daemon threads named {@code name} (the transactional claims' initTransactions()). */
    ExecutorService pool(String name, int threads);

    /** A timer thread named {@code name} (the topic metadata's refresh). */
    ScheduledExecutorService timer(String name);

    /** Starts {@code thread} (a container's worker: its loop runs in it until the worker exits). Real: as is. */
    default void start(Thread thread) {
        thread.start();
    }

    /** A pool of {@code threads} threads made by {@code factory} (a container worker's handler calls). Real: fixed. */
    default ExecutorService pool(int threads, ThreadFactory factory) {
        return Executors.newFixedThreadPool(threads, factory);
    }

    /**
     * The head of {@code queue}, waiting up to {@code nanos} on {@link #nanoTime()}'s clock for one; null when none
     * came (a container worker's wait for its handlers' outcomes while it drains). Real: the queue's own timed poll.
     */
    default <T> T poll(BlockingQueue<T> queue, long nanos) throws InterruptedException {
        return queue.poll(nanos, TimeUnit.NANOSECONDS);
    }

    /** The adapter's clock, as {@code System.nanoTime()}: only differences of its values compare. */
    long nanoTime();

    /**
     * Waits until {@code f} is complete or {@code nanos} have passed on {@link #nanoTime()}'s clock; returns whether
     * it completed (normally or not).
     */
    boolean await(CompletableFuture<?> f, long nanos) throws InterruptedException;

    /** The real ones. */
    final class Real implements KafkaClients {

        private Real() {}

        @Override
        public <K, V> Consumer<K, V> consumer(
                Map<String, Object> properties, Deserializer<K> keys, Deserializer<V> values) {
            return new KafkaConsumer<>(properties, keys, values);
        }

        @Override
        public Producer<Object, Object> producer(
                Map<String, Object> properties, Serializer<Object> keys, Serializer<Object> values) {
            return new KafkaProducer<>(properties, keys, values);
        }

        @Override
        public KafkaAdmin admin(Map<String, Object> properties) {
            return KafkaAdmin.real(properties);
        }

        @Override
        public ExecutorService pool(String name, int threads) {
            return Executors.newFixedThreadPool(threads, r -> {
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                return t;
            });
        }

        @Override
        public ScheduledExecutorService timer(String name) {
            return Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                return t;
            });
        }

        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public boolean await(CompletableFuture<?> f, long nanos) throws InterruptedException {
            try {
                f.get(Math.max(0, nanos), TimeUnit.NANOSECONDS);
                return true;
            } catch (ExecutionException | CancellationException e) {
                return true;
            } catch (TimeoutException e) {
                return f.isDone();
            }
        }
    }
}
