package io.groupkeeper.kafka.container.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.kafka.container.ContainerListener;
import io.groupkeeper.kafka.container.ContainerMetrics;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.Ordering;
import io.groupkeeper.kafka.container.Ticker;
import io.groupkeeper.kafka.container.internal.progress.OffsetProgress;
import io.groupkeeper.kafka.container.internal.progress.ProgressLimits;
import java.lang.management.ManagementFactory;
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
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.Test;

/**
 * The container's record path in {@code PARTITION} ordering with parallelism 1 (its default), counted, not timed: the
 * bytes {@link ProgressDispatch} allocates per record over 100,000 records on four partitions, fetched in polls of 500
 * and pumped as the worker does (the deserializers return constants, so what is counted is the path's own: the
 * record's {@code Fetched}, the deserialized {@code ConsumerRecord}, and per poll the commit's snapshot).
 *
 * <p>The bound is what this code measures (117 bytes: the {@code Fetched} and the deserialized record), rounded up
 * with room. Dispatching one ticket per record, as the path did before its inline runs, measured 189: a
 * {@code Ticket} and an {@code Outcome} per record more.
 */
class ProgressDispatchAllocationTest {

    private static final int PARTITIONS = 4;
    private static final int RECORDS = 100_000;
    private static final int POLL = 500;
    /** Bytes per record through the container's inline path, at most. */
    static final long BOUND = 140;

    private static final Predicate<TopicPartition> NONE_HELD = tp -> false;

    private final com.sun.management.ThreadMXBean mx =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void partitionOrderingInlineAllocatesAtMostItsBoundPerRecord() throws Exception {
        long least = Long.MAX_VALUE;
        for (int run = 0; run < 3; run++) {
            least = Math.min(least, throughDispatch(polls()));
        }
        assertThat(least)
                .as("bytes allocated per record through ProgressDispatch")
                .isLessThanOrEqualTo(BOUND);
    }

    private long throughDispatch(List<ConsumerRecords<ByteBuffer, ByteBuffer>> polls) throws Exception {
        int[] handled = new int[1];
        Supplier<Deserializer<String>> constant = Constant::new;
        ContainerConfig<String, String> config = new ContainerConfig<>(
                null,
                "g",
                Set.of("t"),
                Map.of(),
                Map.of(),
                constant,
                constant,
                false,
                "g",
                null,
                1,
                r -> handled[0]++,
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
                io.groupkeeper.kafka.KafkaClientListener.NONE,
                Ordering.PARTITION,
                1,
                null,
                ProgressLimits.DEFAULT,
                false);
        Control control = new Control();
        ProgressDispatch<String, String> d = new ProgressDispatch<>(
                config,
                null,
                new Constant(),
                new Constant(),
                control,
                null,
                new InFlight(Thread.currentThread()),
                new ThreadLocal<>());
        long before = allocated();
        for (ConsumerRecords<ByteBuffer, ByteBuffer> poll : polls) {
            d.fetched(poll);
            d.pump(NONE_HELD);
        }
        long bytes = allocated() - before;
        assertThat(handled[0]).isEqualTo(RECORDS);
        assertThat(control.lowWater)
                .containsOnly(
                        Map.entry(0, (long) RECORDS / PARTITIONS),
                        Map.entry(1, (long) RECORDS / PARTITIONS),
                        Map.entry(2, (long) RECORDS / PARTITIONS),
                        Map.entry(3, (long) RECORDS / PARTITIONS));
        return bytes / RECORDS;
    }

    private long allocated() {
        assertThat(mx.isThreadAllocatedMemorySupported())
                .as("this JVM counts a thread's allocations")
                .isTrue();
        mx.setThreadAllocatedMemoryEnabled(true);
        return mx.getCurrentThreadAllocatedBytes();
    }

    private static List<ConsumerRecords<ByteBuffer, ByteBuffer>> polls() {
        ByteBuffer value = ByteBuffer.wrap(new byte[100]);
        List<ConsumerRecords<ByteBuffer, ByteBuffer>> polls = new ArrayList<>();
        for (long from = 0; from < RECORDS / PARTITIONS; from += POLL / PARTITIONS) {
            Map<TopicPartition, List<ConsumerRecord<ByteBuffer, ByteBuffer>>> m = new LinkedHashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                List<ConsumerRecord<ByteBuffer, ByteBuffer>> list = new ArrayList<>();
                for (long o = from; o < from + POLL / PARTITIONS; o++) {
                    list.add(new ConsumerRecord<>("t", p, o, null, value));
                }
                m.put(new TopicPartition("t", p), list);
            }
            polls.add(new ConsumerRecords<>(m, Map.of()));
        }
        return polls;
    }

    /** Deserializes to a constant: nothing allocated by the deserializer. */
    private static final class Constant implements Deserializer<String> {
        @Override
        public String deserialize(String topic, byte[] data) {
            return "v";
        }

        @Override
        public String deserialize(String topic, Headers headers, ByteBuffer data) {
            return "v";
        }
    }

    private static final class Control implements ProgressDispatch.Control {
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
