package io.groupkeeper.kafka.container.internal;

import io.groupkeeper.kafka.KafkaClientListener;
import io.groupkeeper.kafka.container.ContainerListener;
import io.groupkeeper.kafka.container.ContainerMetrics;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.Ordering;
import io.groupkeeper.kafka.container.RecordHandler;
import io.groupkeeper.kafka.container.Ticker;
import io.groupkeeper.kafka.container.internal.progress.OffsetProgress;
import io.groupkeeper.kafka.container.internal.progress.ProgressLimits;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The container's record path in {@code PARTITION} ordering with parallelism 1 (its default) without a broker: a
 * {@link ProgressDispatch} as the worker makes it, fed polls of records over four partitions ({@code fetched}, then
 * {@code pump}, as the worker's loop does). Shared by {@link ProgressDispatchAllocationTest} (bytes per record) and
 * {@link InlinePathCpuTime} (the polling thread's CPU time per record).
 */
final class InlinePath {

    static final int PARTITIONS = 4;
    static final int POLL = 500;
    static final Predicate<TopicPartition> NONE_HELD = tp -> false;

    private InlinePath() {}

    /** A dispatch of the container's defaults ({@code PARTITION}, parallelism 1) calling {@code handler} inline. */
    static <V> ProgressDispatch<String, V> dispatch(
            Supplier<Deserializer<String>> keys,
            Supplier<Deserializer<V>> values,
            RecordHandler<String, V> handler,
            Control control) {
        ContainerConfig<String, V> config = new ContainerConfig<>(
                null,
                "g",
                Set.of("t"),
                Map.of(),
                Map.of(),
                keys,
                values,
                false,
                "g",
                null,
                1,
                handler,
                null,
                ErrorPolicy.defaults(),
                t -> t + "-dlt",
                false,
                true,
                Duration.ofSeconds(30),
                Duration.ofMillis(500),
                Duration.ofSeconds(30),
                Duration.ofSeconds(30),
                null,
                Ticker.system(),
                ContainerMetrics.NONE,
                new ContainerListener() {},
                b -> {},
                null,
                null,
                null,
                Map.of(),
                KafkaClientListener.NONE,
                Ordering.PARTITION,
                1,
                null,
                ProgressLimits.DEFAULT,
                false);
        return new ProgressDispatch<>(
                config,
                null,
                keys.get(),
                values.get(),
                control,
                null,
                new InFlight(Thread.currentThread()),
                new ThreadLocal<>());
    }

    /** {@code records} records over four partitions (keys null, values {@code valueBytes} bytes), polls of 500. */
    static List<ConsumerRecords<ByteBuffer, ByteBuffer>> polls(int records, int valueBytes) {
        ByteBuffer value = value(valueBytes);
        List<ConsumerRecords<ByteBuffer, ByteBuffer>> polls = new ArrayList<>();
        for (int i = 0; i < records / POLL; i++) {
            polls.add(poll(i, value));
        }
        return polls;
    }

    /** A value of {@code bytes} bytes. */
    static ByteBuffer value(int bytes) {
        byte[] b = new byte[bytes];
        java.util.Arrays.fill(b, (byte) 'x');
        return ByteBuffer.wrap(b);
    }

    /** Poll {@code index} (from 0): the next 125 records of each of the four partitions, keys null. */
    static ConsumerRecords<ByteBuffer, ByteBuffer> poll(int index, ByteBuffer value) {
        long from = (long) index * (POLL / PARTITIONS);
        Map<TopicPartition, List<ConsumerRecord<ByteBuffer, ByteBuffer>>> m = new LinkedHashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            List<ConsumerRecord<ByteBuffer, ByteBuffer>> list = new ArrayList<>(POLL / PARTITIONS);
            for (long o = from; o < from + POLL / PARTITIONS; o++) {
                list.add(new ConsumerRecord<>("t", p, o, null, value));
            }
            m.put(new TopicPartition("t", p), list);
        }
        return new ConsumerRecords<>(m, Map.of());
    }

    /** Every poll through {@code d} as the worker's loop takes it. */
    static void run(ProgressDispatch<?, ?> d, List<ConsumerRecords<ByteBuffer, ByteBuffer>> polls)
            throws InterruptedException {
        for (ConsumerRecords<ByteBuffer, ByteBuffer> poll : polls) {
            d.fetched(poll);
            d.pump(NONE_HELD);
        }
    }

    /** The worker's side, recording each partition's committed low-water mark. */
    static final class Control implements ProgressDispatch.Control {
        final Map<Integer, Long> lowWater = new LinkedHashMap<>();

        @Override
        public void commit(TopicPartition tp, OffsetProgress progress) {
            lowWater.put(tp.partition(), progress.lowWater());
        }

        @Override
        public OffsetProgress resumeFrom(TopicPartition tp) {
            return null;
        }

        @Override
        public void stopPartition(TopicPartition tp, long offset, String reason) {}

        @Override
        public void outcome(TopicPartition tp, long offset, Throwable failure) {}

        @Override
        public void wakeup() {}

        @Override
        public long token(TopicPartition tp) {
            return 7;
        }
    }
}
