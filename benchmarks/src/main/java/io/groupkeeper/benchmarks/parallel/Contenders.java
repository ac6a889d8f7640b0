package io.groupkeeper.benchmarks.parallel;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.Ordering;
import io.groupkeeper.zookeeper.StoreStats;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The contenders by name: the plain {@code KafkaConsumer} loop, Confluent's parallel-consumer 0.5.3.3 and groupkeeper's
 * listener container, each parallel one in its three orderings with the same workers per instance.
 */
final class Contenders {

    /** Every contender by name, in the order a round runs them (rotated per round). */
    static final Map<String, Contender> ALL = new LinkedHashMap<>();
    /** The lane whose order each contender promises (null: none), for {@link Tally}'s order check. */
    static final Map<String, Tally.LaneOf> LANES = new LinkedHashMap<>();

    static {
        Tally.LaneOf partition = (p, k) -> Integer.toString(p);
        Tally.LaneOf key = (p, k) -> p + "/" + k;
        add("kafka-loop", Contenders::kafkaLoop, partition);
        add("pc-partition", pc("PARTITION"), partition);
        add("pc-key", pc("KEY"), key);
        add("pc-unordered", pc("UNORDERED"), null);
        add("gk-partition", gk(Ordering.PARTITION), partition);
        add("gk-key", gk(Ordering.KEY), key);
        add("gk-unordered", gk(Ordering.UNORDERED), null);
    }

    private Contenders() {}

    private static void add(String name, Contender c, Tally.LaneOf lane) {
        ALL.put(name, c);
        LANES.put(name, lane);
    }

    /** Names from a comma-separated list; an unknown one fails naming the known ones. */
    static List<String> parse(String spec) {
        List<String> names = new ArrayList<>();
        for (String n : spec.split(",")) {
            String name = n.trim();
            if (!ALL.containsKey(name)) {
                throw new IllegalArgumentException("unknown contender '" + name + "'; known: " + ALL.keySet());
            }
            names.add(name);
        }
        return names;
    }

    /**
     * {@code kafka-loop}: what a user writes without a library: one {@code KafkaConsumer} and one thread per partition
     * (assigned, not subscribed), the handler inline, {@code commitAsync} once a second.
     */
    static Instance kafkaLoop(Setup setup, String group, Tally tally) {
        List<Thread> threads = new ArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        for (int p = 0; p < setup.partitions(); p++) {
            TopicPartition tp = new TopicPartition(setup.topic(), p);
            Thread t = new Thread(
                    () -> {
                        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(
                                setup.consumerProps(group), new StringDeserializer(), new StringDeserializer())) {
                            c.assign(List.of(tp));
                            long nextCommit = System.nanoTime() + 1_000_000_000L;
                            while (running.get()) {
                                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                                    if (!running.get()) {
                                        break;
                                    }
                                    tally.handle(r);
                                }
                                if (System.nanoTime() - nextCommit >= 0) {
                                    c.commitAsync();
                                    nextCommit = System.nanoTime() + 1_000_000_000L;
                                }
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    "kafka-loop-" + p);
            t.start();
            threads.add(t);
        }
        return () -> {
            running.set(false);
            for (Thread t : threads) {
                t.join();
            }
        };
    }

    /**
     * parallel-consumer 0.5.3.3 in a JVM of its own ({@link PcChild}, which says which settings and why), with
     * kafka-clients 3.9.1 first on its class path: 0.5.3.3 fails on kafka-clients 4.4.
     */
    static Contender pc(String order) {
        return (setup, group, tally) -> new RemoteInstance(
                setup.pcKafkaClients(),
                setup.pcLog(),
                tally,
                List.of(
                        setup.bootstrap(),
                        setup.topic(),
                        group,
                        order,
                        Integer.toString(setup.workers()),
                        Long.toString(setup.handlerMs())));
    }

    /**
     * groupkeeper's listener container: {@code ordering}, {@code parallelism} = the workers, a record handler, its own
     * ZooKeeper session (so its counters are this instance's alone), defaults otherwise (commit interval 1 s); its offset
     * nodes' {@code "done"} values watched from outside ({@link DoneWatch}).
     */
    static Contender gk(Ordering ordering) {
        return (setup, group, tally) -> {
            ZooKeeperStore store =
                    ZooKeeperStore.builder().connectString(setup.zkConnect()).build();
            GroupKeeper keeper = GroupKeeper.builder().store(store).build().start();
            ListenerContainer<String, String> container;
            try {
                container = ListenerContainer.<String, String>builder(keeper)
                        .group(group)
                        .topics(setup.topic())
                        .kafkaProperties(setup.fetchProps())
                        .deserializers(new StringDeserializer(), new StringDeserializer())
                        .createDeadLetterTopics(true)
                        .consumerOptions(b -> b.startPosition(StartPosition.earliest()))
                        .ordering(ordering)
                        .parallelism(setup.workers())
                        .recordHandler(tally::handle)
                        .build()
                        .start();
            } catch (RuntimeException e) {
                keeper.close();
                throw e;
            }
            DoneWatch done =
                    new DoneWatch(setup.zkConnect(), store.namespace(), group, setup.topic(), setup.partitions());
            return new Instance() {
                @Override
                public StoreStats stats() {
                    return store.stats();
                }

                @Override
                public int largestDone() {
                    return done.longest();
                }

                @Override
                public void close() throws InterruptedException {
                    try {
                        container.close();
                    } finally {
                        keeper.close();
                        done.close();
                    }
                }
            };
        };
    }
}
