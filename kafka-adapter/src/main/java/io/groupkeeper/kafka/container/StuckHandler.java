package io.groupkeeper.kafka.container;

import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * A handler call that has run longer than the watchdog limit: where (partition and first offset of the call), on which
 * worker thread, for how long so far, and that thread's stack when it was noticed.
 */
public record StuckHandler(
        String group,
        String member,
        String thread,
        TopicPartition partition,
        long offset,
        Duration running,
        List<StackTraceElement> stack) {
    public StuckHandler {
        stack = List.copyOf(stack);
    }
}
