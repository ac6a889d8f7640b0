package io.groupkeeper.kafka.container.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.Test;

/**
 * The container's record path in {@code PARTITION} ordering with parallelism 1 (its default), counted, not timed: the
 * bytes {@link ProgressDispatch} allocates per record over 100,000 records on four partitions, fetched in polls of 500
 * and pumped as the worker does ({@link InlinePath}; the deserializers return constants, so what is counted is the
 * path's own: the deserialized {@code ConsumerRecord}, and per poll the commit's snapshot).
 *
 * <p>The bound is what this code measures (75 bytes: the deserialized record, 72, and the poll's share), rounded up
 * with a little room, so that one object more per record fails it. Holding each fetched record in a {@code Fetched}
 * wrapper, as the path did before it read them in place ({@code FetchedView}), measured 117; dispatching one ticket
 * per record, as it did before its inline runs, 189 (a {@code Ticket} and an {@code Outcome} per record more).
 * {@link InlinePathCpuTime} times the same path.
 */
class ProgressDispatchAllocationTest {

    private static final int PARTITIONS = InlinePath.PARTITIONS;
    private static final int RECORDS = 100_000;
    /** Bytes per record through the container's inline path, at most. */
    static final long BOUND = 90;

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
        InlinePath.Control control = new InlinePath.Control();
        ProgressDispatch<String, String> d =
                InlinePath.dispatch(Constant::new, Constant::new, r -> handled[0]++, control);
        long before = allocated();
        InlinePath.run(d, polls);
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
        return InlinePath.polls(RECORDS, 100);
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
}
