package io.groupkeeper.kafka.sim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.NoOffsetForPartitionException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * A {@code KafkaConsumer} of the {@link KafkaModel} as the adapter uses one: {@code assign} (never Kafka's group
 * management), {@code seek}, {@code position}, {@code pause}/{@code resume}, {@code poll} from the fetch positions
 * ({@code auto.offset.reset=none}: a position outside its log throws {@code OffsetOutOfRangeException}, an assigned
 * partition never positioned {@code NoOffsetForPartitionException}), {@code wakeup} (the next poll or blocking call
 * throws {@code WakeupException}), and the metadata and log-offset questions. {@code read_committed}: a record of an
 * open or aborted transaction is never returned, and a fetch stops at the first open one. Everything else is
 * {@code MockConsumer}'s, which the adapter does not call. Answers at once (a poll never waits for records).
 */
public final class ModelConsumer<K, V> extends MockConsumer<K, V> {

    private final KafkaModel kafka;
    private final int maxPollRecords;
    private final Map<TopicPartition, Long> positions = new LinkedHashMap<>();
    private final Set<TopicPartition> paused = new LinkedHashSet<>();
    private boolean wakeup;
    /** Completed by {@link #wakeup()}: ends a poll's wait. */
    private java.util.concurrent.CompletableFuture<Void> woken = new java.util.concurrent.CompletableFuture<>();

    private boolean closed;

    /** Applied to keys and values the model holds as bytes ({@code byte[]}); others are returned as they are. */
    private org.apache.kafka.common.serialization.Deserializer<K> keys;

    private org.apache.kafka.common.serialization.Deserializer<V> values;

    public ModelConsumer(KafkaModel kafka, int maxPollRecords) {
        super("none");
        this.kafka = kafka;
        this.maxPollRecords = maxPollRecords;
    }

    /** A consumer that deserializes what the model holds as bytes (the listener container's records). */
    public ModelConsumer(
            KafkaModel kafka,
            int maxPollRecords,
            org.apache.kafka.common.serialization.Deserializer<K> keys,
            org.apache.kafka.common.serialization.Deserializer<V> values) {
        this(kafka, maxPollRecords);
        this.keys = keys;
        this.values = values;
    }

    @Override
    public Set<TopicPartition> assignment() {
        return Set.copyOf(positions.keySet());
    }

    @Override
    public void assign(Collection<TopicPartition> partitions) {
        requireOpen();
        Map<TopicPartition, Long> kept = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            kept.put(tp, positions.get(tp));
        }
        positions.clear();
        positions.putAll(kept);
        paused.retainAll(kept.keySet());
    }

    @Override
    public void seek(TopicPartition tp, long offset) {
        requireAssigned(tp, "seek");
        if (offset < 0) {
            throw new IllegalArgumentException("seek offset must not be a negative number");
        }
        positions.put(tp, offset);
    }

    @Override
    public void seek(TopicPartition tp, OffsetAndMetadata offset) {
        seek(tp, offset.offset());
    }

    @Override
    public long position(TopicPartition tp) {
        return position(tp, Duration.ofMinutes(1));
    }

    @Override
    public long position(TopicPartition tp, Duration timeout) {
        requireAssigned(tp, "position");
        takeWakeup();
        Long p = positions.get(tp);
        if (p == null) {
            throw new NoOffsetForPartitionException(tp);
        }
        return p;
    }

    @Override
    public void pause(Collection<TopicPartition> partitions) {
        partitions.forEach(tp -> requireAssigned(tp, "pause"));
        paused.addAll(partitions);
    }

    @Override
    public void resume(Collection<TopicPartition> partitions) {
        partitions.forEach(tp -> requireAssigned(tp, "resume"));
        paused.removeAll(partitions);
    }

    @Override
    public Set<TopicPartition> paused() {
        return Set.copyOf(paused);
    }

    @Override
    public void wakeup() {
        wakeup = true;
        woken.complete(null);
    }

    private void takeWakeup() {
        if (wakeup) {
            wakeup = false;
            woken = new java.util.concurrent.CompletableFuture<>();
            throw new WakeupException();
        }
    }

    /**
     * On a clock that can wait ({@link KafkaModel.Time#waits()}), a poll with nothing to return waits in simulated time
     * until a record becomes visible, {@link #wakeup()} or the timeout; otherwise it answers at once.
     */
    @Override
    public ConsumerRecords<K, V> poll(Duration timeout) {
        KafkaModel.Time time = kafka.time();
        long end = time.millis() + Math.max(0, timeout.toMillis());
        while (true) {
            ConsumerRecords<K, V> out = fetch();
            long left = end - time.millis();
            if (!out.isEmpty() || left <= 0 || !time.waits()) {
                return out;
            }
            time.sleep(left, java.util.concurrent.CompletableFuture.anyOf(woken, kafka.appended()));
        }
    }

    private ConsumerRecords<K, V> fetch() {
        requireOpen();
        takeWakeup();
        Map<TopicPartition, Long> outOfRange = new HashMap<>();
        for (Map.Entry<TopicPartition, Long> e : positions.entrySet()) {
            TopicPartition tp = e.getKey();
            if (paused.contains(tp)) {
                continue;
            }
            if (e.getValue() == null) {
                throw new NoOffsetForPartitionException(tp);
            }
            long p = e.getValue();
            if (p < kafka.logStart(tp) || p > kafka.logEnd(tp)) {
                outOfRange.put(tp, p);
            }
        }
        if (!outOfRange.isEmpty()) {
            throw new OffsetOutOfRangeException("model: fetch positions out of range: " + outOfRange, outOfRange);
        }
        Map<TopicPartition, List<ConsumerRecord<K, V>>> out = new LinkedHashMap<>();
        Map<TopicPartition, OffsetAndMetadata> next = new LinkedHashMap<>();
        int left = maxPollRecords;
        for (Map.Entry<TopicPartition, Long> e : positions.entrySet()) {
            TopicPartition tp = e.getKey();
            if (paused.contains(tp) || left <= 0) {
                continue;
            }
            List<ConsumerRecord<K, V>> records = new ArrayList<>();
            long p = e.getValue();
            List<KafkaModel.Entry> log = kafka.entries(tp);
            while (p < log.size() && left > 0) {
                KafkaModel.Entry entry = log.get((int) p);
                if (entry.txn() != null && entry.txn().state == KafkaModel.TxnState.OPEN) {
                    break; // read_committed: the last stable offset
                }
                if (entry.committed()) {
                    records.add(record(tp, entry));
                    left--;
                }
                p++;
            }
            if (p != e.getValue()) {
                e.setValue(p);
                next.put(tp, new OffsetAndMetadata(p));
            }
            if (!records.isEmpty()) {
                out.put(tp, records);
            }
        }
        return new ConsumerRecords<>(out, next);
    }

    @SuppressWarnings("unchecked")
    private ConsumerRecord<K, V> record(TopicPartition tp, KafkaModel.Entry e) {
        K key = e.key() instanceof byte[] b && keys != null ? keys.deserialize(tp.topic(), b) : (K) e.key();
        V value = e.value() instanceof byte[] b && values != null ? values.deserialize(tp.topic(), b) : (V) e.value();
        return new ConsumerRecord<>(tp.topic(), tp.partition(), e.offset(), key, value);
    }

    @Override
    public List<PartitionInfo> partitionsFor(String topic) {
        return partitionsFor(topic, Duration.ofMinutes(1));
    }

    @Override
    public List<PartitionInfo> partitionsFor(String topic, Duration timeout) {
        requireOpen();
        takeWakeup();
        List<PartitionInfo> out = new ArrayList<>();
        int n = kafka.partitions(topic).orElse(0);
        Node leader = new Node(1, "model", 9092);
        for (int p = 0; p < n; p++) {
            out.add(new PartitionInfo(topic, p, leader, new Node[] {leader}, new Node[] {leader}));
        }
        return out;
    }

    @Override
    public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions) {
        return beginningOffsets(partitions, Duration.ofMinutes(1));
    }

    @Override
    public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions, Duration timeout) {
        requireOpen();
        takeWakeup();
        Map<TopicPartition, Long> out = new HashMap<>();
        partitions.forEach(tp -> out.put(tp, kafka.logStart(tp)));
        return out;
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
        return endOffsets(partitions, Duration.ofMinutes(1));
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions, Duration timeout) {
        requireOpen();
        takeWakeup();
        Map<TopicPartition, Long> out = new HashMap<>();
        partitions.forEach(tp -> out.put(tp, kafka.logEnd(tp)));
        return out;
    }

    @Override
    public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestamps) {
        return offsetsForTimes(timestamps, Duration.ofMinutes(1));
    }

    @Override
    public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(
            Map<TopicPartition, Long> timestamps, Duration timeout) {
        requireOpen();
        takeWakeup();
        Map<TopicPartition, OffsetAndTimestamp> out = new HashMap<>();
        timestamps.forEach((tp, ts) -> {
            OffsetAndTimestamp found = null;
            for (KafkaModel.Entry e : kafka.entries(tp)) {
                if (e.offset() >= kafka.logStart(tp) && e.timestamp() >= ts) {
                    found = new OffsetAndTimestamp(e.offset(), e.timestamp());
                    break;
                }
            }
            out.put(tp, found);
        });
        return out;
    }

    @Override
    public OptionalLong currentLag(TopicPartition tp) {
        Long p = positions.get(tp);
        return p == null ? OptionalLong.empty() : OptionalLong.of(Math.max(0, kafka.logEnd(tp) - p));
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public void close(Duration timeout) {
        closed = true;
    }

    @Override
    public void close(CloseOptions option) {
        closed = true;
    }

    @Override
    public boolean closed() {
        return closed;
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("model: this consumer is closed");
        }
    }

    private void requireAssigned(TopicPartition tp, String call) {
        requireOpen();
        if (!positions.containsKey(tp)) {
            throw new IllegalStateException("No current assignment for partition " + tp + " (model: " + call + ")");
        }
    }
}
