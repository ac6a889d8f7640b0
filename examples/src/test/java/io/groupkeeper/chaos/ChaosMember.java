package io.groupkeeper.chaos;

import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.chaos.ChaosLedger.End;
import io.groupkeeper.chaos.ChaosLedger.Ownership;
import io.groupkeeper.chaos.ChaosLedger.Processed;
import io.groupkeeper.chaos.ChaosLedger.SinkOp;
import io.groupkeeper.examples.ZkProxy;
import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One in-JVM consumer of a chaos run, as an application would run it: its own {@link GroupKeeper} and
 * {@link ZooKeeperStore} (its own ZooKeeper session), a {@link CoordinatedConsumer} and a polling thread that
 * "processes" every record by writing it to the {@link ChaosLedger} with its processing interval, and to the run's
 * fenced sink ({@link ChaosSink}) under the fencing token of the claim it was read under. Ownership intervals come
 * from the {@link ConsumerRebalanceListener} (assigned → revoked or lost), recorded on the polling thread; an
 * assignment opens the sink with the new claim's token first.
 *
 * <ul>
 *   <li>{@link #leave()}: graceful — the polling thread finishes its batch, closes the consumer (final commit,
 *   release) and the keeper;</li>
 *   <li>{@link #crash(boolean)}: the polling thread stops mid-batch without closing anything, then the session dies:
 *   closed at once, or (abandoned, as after {@code kill -9}) left to time out on the server. No final commit.</li>
 *   <li>{@link #partition(long)}: its own {@link ZkProxy} drops everything for longer than the session timeout, as
 *   a network partition would: the client notices (read timeout, two thirds of the session timeout), the member
 *   reports its partitions lost, the servers expire the session, others take over; after the heal it rejoins with a
 *   new session;</li>
 *   <li>{@link #stall(long)}: the next record takes that long to process (bounded; ended early by leave or crash).</li>
 * </ul>
 */
final class ChaosMember implements ChaosConsumer {

    /** How a member is built. */
    record Config(
            List<Integer> zkPorts,
            String bootstrap,
            String topic,
            Duration sessionTimeout,
            Duration commitInterval,
            Duration revocationTimeout,
            int maxPollRecords,
            boolean transactional) {

        Config(
                List<Integer> zkPorts,
                String bootstrap,
                String topic,
                Duration sessionTimeout,
                Duration commitInterval,
                Duration revocationTimeout,
                int maxPollRecords) {
            this(zkPorts, bootstrap, topic, sessionTimeout, commitInterval, revocationTimeout, maxPollRecords, false);
        }
    }

    /** In the transactional mode, the topic a group's members write one output per input record to. */
    static String outputTopic(String group) {
        return group + "-out";
    }

    private final String group;
    private final String name;
    private final ChaosLedger ledger;
    /** The output topic in the transactional mode ({@code transform}'s logic); null otherwise. */
    private final String output;

    private final ChaosConnection zk;
    private final ZkProxy proxy;
    private final ZooKeeperStore store;
    private final GroupKeeper keeper;
    private final CoordinatedConsumer<String, String> consumer;
    private final Thread thread;
    private final CountDownLatch done = new CountDownLatch(1);
    private final CountDownLatch wake = new CountDownLatch(1);
    private final Map<Integer, Long> openSince = new ConcurrentHashMap<>();
    private volatile boolean stop;
    private volatile boolean halt;
    private volatile boolean detached;
    private volatile long stallUntil;
    /**
     * Per partition, when user code last let go of records of it: the entry into the poll()/close() call that followed
     * the last batch holding some (polling-thread state). From then on it cannot process that partition until a poll()
     * hands it records again.
     */
    private final Map<Integer, Long> heldUntil = new ConcurrentHashMap<>();
    /** Per partition served by the polling thread, the fencing token of its claim (taken at the assignment). */
    private final Map<Integer, Long> tokens = new ConcurrentHashMap<>();
    /** The partitions of the batch user code holds now. */
    private final java.util.Set<Integer> inHand = new java.util.HashSet<>();

    private volatile Throwable failure;

    private ChaosMember(String group, String name, Config config, ChaosLedger ledger) throws IOException {
        this.group = group;
        this.name = name;
        this.ledger = ledger;
        this.output = config.transactional() ? outputTopic(group) : null;
        this.zk = new ChaosConnection(name, config, ledger);
        this.proxy = zk.proxy;
        this.store = zk.store;
        this.keeper = zk.keeper;
        CoordinatedConsumer.Builder<String, String> builder = CoordinatedConsumer.<String, String>builder(keeper)
                .group(group)
                .topics(config.topic())
                .kafkaProperty("bootstrap.servers", config.bootstrap())
                .kafkaProperty("max.poll.records", config.maxPollRecords())
                .kafkaProperty("fetch.max.wait.ms", 100)
                .deserializers(new StringDeserializer(), new StringDeserializer())
                .startPosition(StartPosition.earliest())
                .commitInterval(config.commitInterval())
                .revocationTimeout(config.revocationTimeout())
                .metadataRefreshInterval(Duration.ofSeconds(1))
                .listener(new Recorder());
        if (config.transactional()) {
            builder.transactional(new StringSerializer(), new StringSerializer());
        }
        this.consumer = builder.build();
        this.thread = new Thread(this::run, "chaos-" + name);
        this.thread.setDaemon(true);
    }

    /** Connects, joins the group and starts polling. */
    static ChaosMember start(String group, String name, Config config, ChaosLedger ledger) throws IOException {
        ChaosMember m = new ChaosMember(group, name, config, ledger);
        m.zk.start(m.consumer::start);
        m.thread.start();
        return m;
    }

    private void run() {
        try {
            while (!stop && !halt) {
                ConsumerRecords<String, String> records;
                try {
                    letGo();
                    records = consumer.poll(Duration.ofMillis(100));
                } catch (WakeupException e) {
                    continue;
                }
                // Every record of the batch is written to the sink under the token of the claim it was read under,
                // taken now (see FencingTokens in the examples for why never later).
                Map<Integer, Long> batchTokens = new HashMap<>();
                records.partitions().forEach(tp -> {
                    inHand.add(tp.partition());
                    batchTokens.put(tp.partition(), tokens.getOrDefault(tp.partition(), SinkOp.NO_TOKEN));
                });
                // A graceful leave finishes the batch (close() commits past it); a crash drops it where it is.
                for (ConsumerRecord<String, String> r : records) {
                    if (halt) {
                        break;
                    }
                    long at = System.currentTimeMillis();
                    maybeStall();
                    if (halt) {
                        break; // crashed while stalled: this record was never finished
                    }
                    // Unlike the example's loop, a refusal does not end the batch here: the run measures everything a
                    // zombie does after its successor started, and counts how much of it the token kept out.
                    if (output != null) { // the transform command's logic: one output per input, in its transaction
                        consumer.send(
                                new TopicPartition(r.topic(), r.partition()),
                                new ProducerRecord<>(
                                        output, r.key(), ChaosEosChecker.value(r.topic(), r.partition(), r.offset())));
                    }
                    ledger.sink().write(group, r.partition(), r.offset(), name, batchTokens.get(r.partition()));
                    ledger.processed(new Processed(
                            group,
                            r.partition(),
                            r.offset(),
                            name,
                            at,
                            System.currentTimeMillis(),
                            r.key(),
                            batchTokens.get(r.partition())));
                }
            }
            if (!halt) {
                letGo();
                consumer.close();
                keeper.close();
                proxy.close();
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            done.countDown();
        }
    }

    /** Entering poll() or close(): the batch in hand is done. */
    private void letGo() {
        long now = System.currentTimeMillis();
        inHand.forEach(p -> heldUntil.put(p, now));
        inHand.clear();
    }

    private void maybeStall() throws InterruptedException {
        long until = stallUntil;
        if (until > 0) {
            stallUntil = 0;
            long remaining = until - System.currentTimeMillis();
            if (remaining > 0) {
                wake.await(remaining, TimeUnit.MILLISECONDS); // the injected fault: user code blocked, bounded
            }
        }
    }

    /** Ownership intervals as user code sees them (callbacks on the polling thread). */
    private final class Recorder implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (detached) {
                return;
            }
            for (TopicPartition tp : partitions) {
                // the new owner opens the sink with its claim's token before it is handed any record: its ownership
                // starts when the sink took the token, so a former owner's write after that instant must be refused
                long token = consumer.fencingToken(tp).orElse(SinkOp.NO_TOKEN);
                long at = System.currentTimeMillis();
                if (token != SinkOp.NO_TOKEN) {
                    at = ledger.sink().open(group, tp.partition(), name, token);
                    tokens.put(tp.partition(), token);
                }
                openSince.putIfAbsent(tp.partition(), at);
            }
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            end(partitions, End.REVOKED);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            end(partitions, End.LOST);
        }

        private void end(Collection<TopicPartition> partitions, End how) {
            long now = System.currentTimeMillis();
            for (TopicPartition tp : partitions) {
                tokens.remove(tp.partition());
                Long from = openSince.remove(tp.partition());
                Long held = heldUntil.remove(tp.partition());
                if (from != null && !detached) {
                    // user code last had records of it in hand until `held`; the callback may come (much) later
                    long to = held == null || held < from ? from : held;
                    ledger.ownership(new Ownership(group, tp.partition(), name, from, to, how, now));
                }
            }
        }
    }

    // ------------------------------------------------------------------ faults

    @Override
    public String group() {
        return group;
    }

    @Override
    public String name() {
        return name;
    }

    /** Graceful leave, asynchronously; {@link #awaitDone} waits for it. */
    @Override
    public void leave() {
        stop = true;
        wake.countDown();
        consumer.wakeup();
    }

    /**
     * Crash: the polling thread stops where it is (no close, no commit); its open ownership intervals end now; then
     * the session ends — {@code abandon}: nothing reaches the servers any more (the proxy drops everything, so they
     * expire the session after its timeout, as after {@code kill -9}); otherwise it is closed at once (the process
     * failed in user code but its ZooKeeper client was closed on the way out, e.g. by a shutdown hook). No final
     * commit either way. Returns the instant processing stopped.
     */
    @Override
    public long crash(boolean abandon) {
        halt = true;
        wake.countDown();
        consumer.wakeup();
        await().atMost(Duration.ofSeconds(30)).until(() -> done.getCount() == 0);
        long at = System.currentTimeMillis();
        detached = true;
        if (output != null) {
            killProducers();
        }
        openSince.forEach((p, from) -> ledger.ownership(new Ownership(group, p, name, from, at, End.CRASHED)));
        openSince.clear();
        if (abandon) {
            proxy.partition(); // from now on the servers hear nothing from this member, not even a closeSession
        } else {
            store.close(); // closeSession: its ephemeral nodes go at once
        }
        return at;
    }

    /**
     * The Kafka side of a kill -9 in the transactional mode: every transactional producer closed at once without a
     * word to the broker (a forced close sends no EndTxn), so open transactions stay open on the transaction
     * coordinator until the partition's next owner's {@code initTransactions()} aborts them (or they time out). Without
     * it, {@link #cleanUp()}'s close would commit them, which a killed process never does. Reaches into the adapter's
     * internals (test code; the fields are named in the failure if they move).
     */
    private void killProducers() {
        try {
            Object txns = field(consumer, "txns");
            Map<?, ?> byPartition = (Map<?, ?>) field(txns, "txns");
            for (Object t : byPartition.values()) { // the polling thread has stopped: nobody else touches them
                Object producer = field(t, "producer");
                if (producer != null) {
                    ((org.apache.kafka.clients.producer.Producer<?, ?>) producer).close(Duration.ZERO);
                }
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot reach the transactional producers of " + name, e);
        }
    }

    private static Object field(Object target, String name) throws ReflectiveOperationException {
        java.lang.reflect.Field f = target.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(target);
    }

    /** Frees what a crashed member left behind (its store is closed, so nothing can be written any more). */
    @Override
    public void cleanUp() {
        store.close(); // after an abandoned crash the closeSession is dropped by the proxy
        if (output != null) {
            try {
                consumer.close(); // its producers are closed already: no transaction of it can commit now
            } catch (RuntimeException e) {
                // the close of a killed member (its final commits find closed producers): nothing reaches Kafka
            }
        } else {
            consumer.close();
        }
        keeper.close();
        proxy.close();
    }

    @Override
    public void partition(long millis) {
        zk.partition(millis);
    }

    /** Ends a cut-off now. */
    void heal() {
        proxy.heal();
    }

    @Override
    public boolean isPartitioned() {
        return zk.isPartitioned();
    }

    @Override
    public void stall(long millis) {
        stallUntil = System.currentTimeMillis() + millis;
    }

    @Override
    public boolean supportsSessionFaults() {
        return true;
    }

    @Override
    public boolean isLeader() {
        return done.getCount() > 0 && consumer.isLeader();
    }

    @Override
    public Optional<Integer> zkServerPort() {
        return zk.zkServerPort();
    }

    @Override
    public void awaitDone(Duration timeout) {
        await().atMost(timeout).until(() -> done.getCount() == 0);
    }

    @Override
    public Optional<String> failure() {
        return ChaosConnection.failure(name, failure);
    }

    /** Since when user code was told it owns {@code partition}, if it owns it now. */
    Optional<Long> ownedSince(int partition) {
        return Optional.ofNullable(openSince.get(partition));
    }

    /** The partitions its consumer owns now. */
    int owned() {
        return consumer.assignment().size();
    }

    @Override
    public String toString() {
        return name;
    }
}
