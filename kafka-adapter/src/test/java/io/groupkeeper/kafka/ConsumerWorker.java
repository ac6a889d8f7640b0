package io.groupkeeper.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Runs one {@link CoordinatedConsumer} on its own thread, the way an application would: poll, "process" (record into
 * a shared {@link Deliveries}), poll again. {@link #stop()} leaves gracefully (close on the polling thread);
 * {@link #halt()} just stops polling, as a crashed process would (the caller then ends its ZooKeeper session).
 */
final class ConsumerWorker implements AutoCloseable {

    /** One record as user code saw it. */
    record Delivery(String consumer, String topic, int partition, long offset, String value) {}

    /** Everything every worker of a test received, in order, plus ownership intervals from the user listener. */
    static final class Deliveries {
        final List<Delivery> all = new CopyOnWriteArrayList<>();
        final List<String> overlaps = new CopyOnWriteArrayList<>();
        private final Map<TopicPartition, String> owner = new HashMap<>();

        ConsumerRebalanceListener listenerFor(String name) {
            return new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    synchronized (owner) {
                        for (TopicPartition tp : partitions) {
                            String before = owner.put(tp, name);
                            if (before != null && !before.equals(name)) {
                                overlaps.add(tp + " assigned to " + name + " while " + before + " still had it");
                            }
                        }
                    }
                }

                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    release(partitions);
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    release(partitions);
                }

                private void release(Collection<TopicPartition> partitions) {
                    synchronized (owner) {
                        partitions.forEach(tp -> owner.remove(tp, name));
                    }
                }
            };
        }

        /** Releases every interval a halted (crashed) worker still held, as its session end does. */
        void forget(String name) {
            synchronized (owner) {
                owner.values().removeIf(name::equals);
            }
        }

        List<String> values() {
            List<String> out = new ArrayList<>();
            all.forEach(d -> out.add(d.value()));
            return out;
        }

        List<Delivery> of(String consumer) {
            List<Delivery> out = new ArrayList<>();
            all.forEach(d -> {
                if (d.consumer().equals(consumer)) {
                    out.add(d);
                }
            });
            return out;
        }

        /** Values delivered more than once. */
        List<String> duplicates() {
            Map<String, Integer> seen = new HashMap<>();
            all.forEach(d -> seen.merge(d.value(), 1, Integer::sum));
            List<String> out = new ArrayList<>();
            seen.forEach((v, n) -> {
                if (n > 1) {
                    out.add(v);
                }
            });
            Collections.sort(out);
            return out;
        }
    }

    final String name;
    final CoordinatedConsumer<String, String> consumer;
    private final Deliveries deliveries;
    private final Thread thread;
    private final CountDownLatch done = new CountDownLatch(1);
    private final Map<String, Long> received = new ConcurrentHashMap<>();
    private volatile boolean stop;
    private volatile boolean halt;
    private volatile Throwable failure;
    final List<RuntimeException> pollErrors = new CopyOnWriteArrayList<>();

    ConsumerWorker(String name, CoordinatedConsumer<String, String> consumer, Deliveries deliveries) {
        this.name = name;
        this.consumer = consumer;
        this.deliveries = deliveries;
        this.thread = new Thread(this::run, "worker-" + name);
        this.thread.setDaemon(true);
    }

    /** Starts the consumer (on the caller's thread) and then the polling thread. */
    ConsumerWorker start() {
        consumer.start();
        thread.start();
        return this;
    }

    private void run() {
        try {
            while (!stop && !halt) {
                try {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                        deliveries.all.add(new Delivery(name, r.topic(), r.partition(), r.offset(), r.value()));
                        received.merge(r.topic() + ":" + r.partition(), r.offset(), Math::max);
                    }
                } catch (OffsetOutOfRangePolicyException e) {
                    pollErrors.add(e);
                }
            }
            if (!halt) {
                consumer.close();
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            done.countDown();
        }
    }

    /** Graceful leave: the polling thread closes the consumer (final commit, release). Waits for it. */
    void stop() throws InterruptedException {
        stop = true;
        if (!done.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("worker " + name + " did not stop");
        }
        if (failure != null) {
            throw new IllegalStateException("worker " + name + " failed", failure);
        }
    }

    /** Stops polling without closing anything, as a crash would. Waits until the thread has left poll(). */
    void halt() throws InterruptedException {
        halt = true;
        if (!done.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("worker " + name + " did not halt");
        }
    }

    Throwable failure() {
        return failure;
    }

    @Override
    public void close() throws Exception {
        if (done.getCount() > 0) {
            stop();
        } else if (halt) {
            consumer.close(); // clean up after a simulated crash (its polling thread is gone)
        }
    }
}
