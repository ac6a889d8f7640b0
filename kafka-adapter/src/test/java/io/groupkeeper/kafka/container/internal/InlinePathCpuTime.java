package io.groupkeeper.kafka.container.internal;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The polling thread's CPU time and allocation per record on the container's inline path ({@code PARTITION},
 * parallelism 1), without a broker: {@link InlinePath}'s {@code fetched} + {@code pump} per poll, against a plain loop
 * that deserializes the same records into {@code ConsumerRecord}s ({@link InPlaceDeserializer}, String deserializers)
 * and hands their values to the same handler. Each poll's records are made fresh just before it is timed, as a
 * consumer's poll makes them (so they are as warm in the cache as a poll leaves them), and only the handling of the
 * poll counts. Thread CPU time, so time the thread is descheduled does not count: it holds on a loaded machine where
 * wall-clock throughput does not. Rounds of 100,000 records alternate the two after 10 warm-up rounds each; prints the
 * min and median nanoseconds per record of each, and the least bytes allocated per record.
 *
 * <pre>
 * java -cp kafka-adapter/target/test-classes:kafka-adapter/target/classes:&lt;the module's test classpath&gt; \
 *     io.groupkeeper.kafka.container.internal.InlinePathCpuTime [rounds, 60] [records per round, 100000]
 * </pre>
 *
 * A measuring tool, not a test; {@link ProgressDispatchAllocationTest} is the count that guards the path in the build.
 */
public final class InlinePathCpuTime {

    private static final com.sun.management.ThreadMXBean MX =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final ByteBuffer VALUE = InlinePath.value(100);

    private static long sink;

    private InlinePathCpuTime() {}

    /** One round's cost per record: CPU nanoseconds (of them in {@code fetched}) and bytes allocated. */
    private record Cost(long nanos, long fetchedNanos, long bytes) {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        int records = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        for (int w = 0; w < 10; w++) { // warm-up: both compiled before the rounds count
            container(records);
            plain(records);
        }
        long[] c = new long[rounds];
        long[] f = new long[rounds];
        long[] p = new long[rounds];
        long cb = Long.MAX_VALUE;
        long pb = Long.MAX_VALUE;
        for (int r = 0; r < rounds; r++) {
            Cost a = container(records);
            Cost b = plain(records);
            c[r] = a.nanos();
            f[r] = a.fetchedNanos();
            p[r] = b.nanos();
            cb = Math.min(cb, a.bytes());
            pb = Math.min(pb, b.bytes());
        }
        Arrays.sort(c);
        Arrays.sort(f);
        Arrays.sort(p);
        System.out.printf(
                "CPU ns/record over %d rounds of %d records: container min %d median %d (fetched min %d median %d);"
                        + " plain loop min %d median %d; bytes/record (least): container %d, plain loop %d%n",
                rounds, records, c[0], c[rounds / 2], f[0], f[rounds / 2], p[0], p[rounds / 2], cb, pb);
    }

    private static Cost container(int records) throws InterruptedException {
        long[] handled = new long[1];
        ProgressDispatch<String, String> d = InlinePath.dispatch(
                StringDeserializer::new,
                StringDeserializer::new,
                r -> handled[0] += r.value().length(),
                new InlinePath.Control());
        long nanos = 0;
        long fetchedNanos = 0;
        long bytes = 0;
        for (int i = 0; i < records / InlinePath.POLL; i++) {
            ConsumerRecords<ByteBuffer, ByteBuffer> poll = InlinePath.poll(i, VALUE);
            long b0 = MX.getCurrentThreadAllocatedBytes();
            long t0 = MX.getCurrentThreadCpuTime();
            d.fetched(poll);
            long t1 = MX.getCurrentThreadCpuTime();
            d.pump(InlinePath.NONE_HELD);
            nanos += MX.getCurrentThreadCpuTime() - t0;
            fetchedNanos += t1 - t0;
            bytes += MX.getCurrentThreadAllocatedBytes() - b0;
        }
        check(handled[0], records);
        return new Cost(nanos / records, fetchedNanos / records, bytes / records);
    }

    private static Cost plain(int records) {
        StringDeserializer keys = new StringDeserializer();
        StringDeserializer values = new StringDeserializer();
        long handled = 0;
        long nanos = 0;
        long bytes = 0;
        for (int i = 0; i < records / InlinePath.POLL; i++) {
            ConsumerRecords<ByteBuffer, ByteBuffer> poll = InlinePath.poll(i, VALUE);
            long b0 = MX.getCurrentThreadAllocatedBytes();
            long t0 = MX.getCurrentThreadCpuTime();
            for (ConsumerRecord<ByteBuffer, ByteBuffer> raw : poll) {
                ConsumerRecord<String, String> r = InPlaceDeserializer.deserialize(keys, values, raw);
                handled += r.value().length();
            }
            nanos += MX.getCurrentThreadCpuTime() - t0;
            bytes += MX.getCurrentThreadAllocatedBytes() - b0;
        }
        check(handled, records);
        return new Cost(nanos / records, 0, bytes / records);
    }

    private static void check(long handled, int records) {
        if (handled != 100L * records) {
            throw new IllegalStateException("handled " + handled + " value bytes, expected " + 100L * records);
        }
        sink += handled;
    }
}
