package io.groupkeeper.benchmarks.rebalance;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer on its own thread, as an application runs one: creates the consumer (after the event instant), joins
 * through {@code subscribe}, polls, and reports callbacks and deliveries to the {@link Probe}. {@link #leave()} and
 * {@link #crash()} are carried out by the poll thread (a {@code KafkaConsumer} is single-threaded) after a
 * {@code wakeup()}.
 *
 * <p>Crash: the poll thread stops, and the consumer's own background threads (the classic protocol's heartbeat
 * thread, the consumer protocol's network thread: found by walking the consumer's fields) are suspended, so the
 * process goes silent with its sockets open, as a frozen or killed process does: no LeaveGroup, no commit, and the
 * broker learns of it only when the session times out. ({@code close(REMAIN_IN_GROUP)} of KIP-1092 is not enough:
 * with the consumer protocol the broker reassigned a closed dynamic member's partitions at once.) This relies on
 * {@link Thread#suspend()}, which Java 17 still supports. After the measurement the threads are resumed and the
 * consumer closed without leaving.
 *
 * <p>Generic over how the consumer is made, so the groupkeeper-over-Kafka subject can reuse the loop if its consumer
 * is a {@link Consumer} too.
 */
public final class KafkaPollingMember implements RebalanceSubject.SubjectMember {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaPollingMember.class);

    private enum Command {
        NONE,
        LEAVE,
        CRASH
    }

    private final String name;
    private final String topic;
    private final Probe probe;
    private final Function<ConsumerRebalanceListener, Consumer<byte[], byte[]>> factory;
    private final Thread thread;
    private volatile Command command = Command.NONE;
    private volatile Consumer<byte[], byte[]> consumer;

    /**
     * {@code factory} builds and subscribes the consumer with the given listener (e.g.
     * {@code l -> { var c = new KafkaConsumer<>(props); c.subscribe(List.of(topic), l); return c; }}).
     */
    public KafkaPollingMember(
            String name,
            String topic,
            Probe probe,
            Function<ConsumerRebalanceListener, Consumer<byte[], byte[]>> factory) {
        this.name = name;
        this.topic = topic;
        this.probe = probe;
        this.factory = factory;
        this.thread = new Thread(this::run, "member-" + name);
        this.thread.setDaemon(true);
    }

    public KafkaPollingMember start() {
        thread.start();
        return this;
    }

    @Override
    public String name() {
        return name;
    }

    private void run() {
        ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                probe.revoked(name, numbers(partitions));
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                probe.assigned(name, numbers(partitions));
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                probe.revoked(name, numbers(partitions));
            }
        };
        Consumer<byte[], byte[]> c;
        try {
            c = factory.apply(listener);
        } catch (RuntimeException e) {
            LOG.error("member {}: could not create consumer", name, e);
            return;
        }
        consumer = c;
        try {
            while (command == Command.NONE) {
                try {
                    ConsumerRecords<byte[], byte[]> records = c.poll(Duration.ofMillis(100));
                    long now = System.nanoTime();
                    for (TopicPartition tp : records.partitions()) {
                        if (tp.topic().equals(topic)) {
                            probe.delivered(name, tp.partition(), now);
                        }
                    }
                } catch (WakeupException e) {
                    // a command is waiting
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("member {}: poll loop failed: {}", name, e.toString());
        } finally {
            if (command == Command.CRASH) {
                frozen = freeze(c);
                if (!frozen.isEmpty()) {
                    return; // silent; awaitStopped() thaws and closes it later
                }
                LOG.warn("member {}: found no consumer threads to suspend; crashing by close(REMAIN_IN_GROUP)", name);
            }
            try {
                if (command == Command.CRASH) {
                    c.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                            .withTimeout(Duration.ZERO));
                } else {
                    c.close();
                }
            } catch (RuntimeException e) {
                LOG.debug("member {}: close: {}", name, e.toString());
            }
        }
    }

    private volatile List<Thread> frozen = List.of();

    /** Suspends every thread reachable from the consumer's fields (its heartbeat or network thread). */
    @SuppressWarnings("removal")
    private static List<Thread> freeze(Object consumer) {
        List<Thread> threads = new ArrayList<>();
        collectThreads(consumer, 0, Collections.newSetFromMap(new IdentityHashMap<>()), threads);
        threads.removeIf(t -> t == Thread.currentThread() || !t.isAlive());
        for (Thread t : threads) {
            t.suspend();
        }
        return threads;
    }

    private static void collectThreads(Object o, int depth, Set<Object> seen, List<Thread> out) {
        if (o == null || depth > 6 || !seen.add(o)) {
            return;
        }
        if (o instanceof Thread t) {
            out.add(t);
            return;
        }
        Class<?> type = o.getClass();
        if (!type.getName().startsWith("org.apache.kafka.")) {
            return;
        }
        for (Class<?> c = type; c != null && c.getName().startsWith("org.apache.kafka."); c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (f.getType().isPrimitive() || Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                try {
                    f.setAccessible(true);
                    collectThreads(f.get(o), depth + 1, seen, out);
                } catch (RuntimeException | IllegalAccessException e) {
                    // not reachable: skip
                }
            }
        }
    }

    private static List<Integer> numbers(Collection<TopicPartition> partitions) {
        List<Integer> out = new ArrayList<>(partitions.size());
        partitions.forEach(tp -> out.add(tp.partition()));
        return out;
    }

    @Override
    public void leave() {
        signal(Command.LEAVE);
    }

    @Override
    public void crash() {
        signal(Command.CRASH);
    }

    private void signal(Command c) {
        command = c;
        Consumer<byte[], byte[]> k = consumer;
        if (k != null) {
            k.wakeup();
        }
    }

    @Override
    @SuppressWarnings("removal")
    public void awaitStopped(long timeoutMs) {
        try {
            thread.join(timeoutMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<Thread> thaw = frozen;
        Consumer<byte[], byte[]> c = consumer;
        if (!thaw.isEmpty() && c != null) {
            frozen = List.of();
            Thread reaper = new Thread(
                    () -> {
                        thaw.forEach(Thread::resume);
                        try {
                            c.close(CloseOptions.groupMembershipOperation(
                                            CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                                    .withTimeout(Duration.ofSeconds(5)));
                        } catch (RuntimeException e) {
                            LOG.debug("member {}: close after crash: {}", name, e.toString());
                        }
                    },
                    "reaper-" + name);
            reaper.setDaemon(true);
            reaper.start();
        }
    }

    /** Consumer properties every Kafka-side member uses, before setting-specific ones. */
    static Map<String, Object> baseProperties(Map<String, Object> base, String groupId, String memberName) {
        base.put("group.id", groupId);
        base.put("client.id", memberName);
        base.put("key.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
        base.put("value.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
        return base;
    }
}
