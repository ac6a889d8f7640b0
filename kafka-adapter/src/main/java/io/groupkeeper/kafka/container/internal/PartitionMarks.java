package io.groupkeeper.kafka.container.internal;

import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.container.StoppedPartition;
import io.groupkeeper.status.FailingMark;
import io.groupkeeper.status.StoppedMark;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * What a worker tells lag status through its partitions' offset metadata ({@code CoordinatedConsumer.offsetMetadata},
 * written with each partition's next commit): a {@link StoppedMark} while the error policy keeps a partition stopped
 * (STOP until it runs again), a {@link FailingMark} while its last {@link FailingMark#THRESHOLD} or more records were
 * recovered (dead-lettered, skipped) instead of handled (WARN until a record is handled again), and none otherwise.
 * Worker thread only.
 */
final class PartitionMarks {

    /** How many records in a row of a partition were recovered instead of handled, and the last of them. */
    private record Failing(int records, long offset, String failure) {}

    private final Map<TopicPartition, Failing> failing = new HashMap<>();
    /** The mark each partition's offset metadata carries now. */
    private final Map<TopicPartition, String> marked = new HashMap<>();

    /** The record (or batch) at {@code offset} is done: handled ({@code failure} null), or recovered after it. */
    void outcome(TopicPartition tp, long offset, Throwable failure) {
        if (failure == null) {
            if (!failing.isEmpty()) {
                failing.remove(tp);
            }
            return;
        }
        Failing f = failing.get(tp);
        failing.put(tp, new Failing(f == null ? 1 : f.records() + 1, offset, failure.toString()));
    }

    /** Makes the owned partitions' metadata what their state says (a stopped mark wins over a failing one). */
    void apply(
            CoordinatedConsumer<ByteBuffer, ByteBuffer> c,
            Set<TopicPartition> owned,
            Map<TopicPartition, StoppedPartition> stopped) {
        if (stopped.isEmpty() && marked.isEmpty() && failing.isEmpty()) {
            return;
        }
        failing.keySet().retainAll(owned);
        Map<TopicPartition, String> want = new HashMap<>();
        failing.forEach((tp, f) -> {
            if (f.records() >= FailingMark.THRESHOLD) {
                want.put(tp, FailingMark.of(f.records(), f.offset(), f.failure()));
            }
        });
        stopped.forEach((tp, s) -> want.put(tp, StoppedMark.of(s.offset(), s.reason())));
        want.forEach((tp, mark) -> {
            if (!mark.equals(marked.get(tp))) {
                c.offsetMetadata(tp, mark);
                marked.put(tp, mark);
            }
        });
        marked.keySet().removeIf(tp -> {
            if (want.containsKey(tp)) {
                return false;
            }
            if (owned.contains(tp)) {
                c.offsetMetadata(tp, ""); // running again (resumed, reset by an operator, a record handled)
            }
            return true;
        });
    }
}
