package io.groupkeeper.examples;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.OffsetOutOfRangePolicyException;
import io.groupkeeper.kafka.OutOfRangePolicy;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One consumer of the story, as it would run in its own process: its own ZooKeeper session ({@link GroupKeeper}), its
 * own {@link CoordinatedConsumer}, its own polling thread that "processes" records by noting them in a
 * {@link Deliveries}.
 */
final class StoryConsumer implements AutoCloseable {

    final String name;
    final GroupKeeper keeper;
    final CoordinatedConsumer<String, String> consumer;
    private final Deliveries deliveries;
    private final Thread thread;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean leave;
    private volatile boolean crash;
    private volatile long crashRequested;
    private volatile boolean closed;

    private StoryConsumer(
            String name, GroupKeeper keeper, CoordinatedConsumer<String, String> consumer, Deliveries deliveries) {
        this.name = name;
        this.keeper = keeper;
        this.consumer = consumer;
        this.deliveries = deliveries;
        this.thread = new Thread(this::pollLoop, name);
        this.thread.setDaemon(true);
    }

    static StoryConsumer start(
            String name,
            String zk,
            String namespace,
            String bootstrap,
            String group,
            String topic,
            StartPosition start,
            OutOfRangePolicy outOfRange,
            Deliveries deliveries) {
        GroupKeeper keeper = GroupKeeper.builder()
                .store(ZooKeeperStore.builder()
                        .connectString(zk)
                        .namespace(namespace)
                        .sessionTimeout(Duration.ofSeconds(10))
                        .build())
                .build()
                .start();
        try {
            CoordinatedConsumer<String, String> consumer = CoordinatedConsumer.<String, String>builder(keeper)
                    .group(group)
                    .topics(topic)
                    .kafkaProperty("bootstrap.servers", bootstrap)
                    .kafkaProperty("client.id", group + "-" + name)
                    .deserializers(new StringDeserializer(), new StringDeserializer())
                    .startPosition(start)
                    .outOfRange(outOfRange)
                    .metadataRefreshInterval(Duration.ofSeconds(1))
                    .build();
            StoryConsumer sc = new StoryConsumer(name, keeper, consumer, deliveries);
            consumer.start();
            sc.thread.start();
            return sc;
        } catch (RuntimeException e) {
            keeper.close();
            throw e;
        }
    }

    private void pollLoop() {
        try {
            while (!leave) {
                try {
                    ConsumerRecords<String, String> batch = consumer.poll(Duration.ofMillis(100));
                    for (ConsumerRecord<String, String> r : batch) {
                        deliveries.add(new Deliveries.Delivery(name, r.partition(), r.offset(), r.value()));
                    }
                    // A crash strikes while a batch is being processed (or, if nothing comes, after a while).
                    if (crash && (!batch.isEmpty() || System.nanoTime() - crashRequested > 2_000_000_000L)) {
                        break;
                    }
                } catch (OffsetOutOfRangePolicyException e) {
                    System.err.println(name + ": " + e.getMessage());
                }
            }
            if (leave) {
                consumer.close(); // on the polling thread: final commit, then the partitions are released
            }
        } finally {
            stopped.countDown();
        }
    }

    /** Graceful leave: final commit, release, goodbye. */
    void leave() throws InterruptedException {
        leave = true;
        stopped.await(60, TimeUnit.SECONDS);
        close();
    }

    /**
     * The first half of a crash: the polling thread dies while processing its next batch (which is therefore never
     * committed). Its session lives on until {@link #endSession()}, so nobody else can own its partitions meanwhile.
     */
    void halt() throws InterruptedException {
        crashRequested = System.nanoTime();
        crash = true;
        stopped.await(60, TimeUnit.SECONDS);
    }

    /** The second half of a crash: the ZooKeeper session ends without a goodbye, as after {@code kill -9}. */
    void endSession() {
        ((ZooKeeperStore) keeper.store()).close();
    }

    String memberId() {
        return consumer.memberId();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (stopped.getCount() > 0) {
            leave = true;
            try {
                stopped.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else if (crash) {
            return; // a crashed process leaves nothing to close: its session is gone, its threads are daemons
        }
        keeper.close();
    }
}
