package io.groupkeeper.spring.internal;

import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;

/**
 * What a migrated service's {@code spring.kafka.listener.*} settings mean here. {@code concurrency},
 * {@code auto-startup}, {@code client-id} and {@code idle-event-interval} are applied (below {@code groupkeeper.listener.*}, which wins); the ones
 * that configure Spring Kafka's own container — acknowledgement, poll and idle timings, the batch type — have no
 * counterpart and are named in one WARN at start, never silently dropped.
 */
final class SpringKafkaListenerSettings {

    private SpringKafkaListenerSettings() {
    }

    /** The {@code spring.kafka.listener.*} settings that are set and have no effect here, with what to use instead. */
    static List<String> ignored(KafkaProperties.Listener l) {
        List<String> out = new ArrayList<>();
        if (l.getType() == KafkaProperties.Listener.Type.BATCH) {
            out.add("type=batch (a method with a List parameter is a batch listener)");
        }
        if (l.getAckMode() != null) {
            out.add("ack-mode=" + l.getAckMode() + " (offsets are committed by the container: "
                    + "groupkeeper.listener.commit-interval)");
        }
        if (l.getAckCount() != null || l.getAckTime() != null || l.getAsyncAcks() != null) {
            out.add("ack-count/ack-time/async-acks (groupkeeper.listener.commit-interval)");
        }
        if (l.getPollTimeout() != null || l.getIdleBetweenPolls() != null || l.getNoPollThreshold() != null
                || l.getMonitorInterval() != null) {
            out.add("poll-timeout/idle-between-polls/no-poll-threshold/monitor-interval (groupkeeper.listener.watchdog)");
        }
        if (l.getIdlePartitionEventInterval() != null) { // (idle-event-interval applies: ListenerIdleEvent)
            out.add("idle-partition-event-interval (no per-partition idle events: "
                    + "groupkeeper.listener.idle-event-interval publishes ListenerIdleEvent per consumer)");
        }
        if (l.isImmediateStop()) {
            out.add("immediate-stop (groupkeeper.listener.stop-deadline)");
        }
        return out;
    }
}
