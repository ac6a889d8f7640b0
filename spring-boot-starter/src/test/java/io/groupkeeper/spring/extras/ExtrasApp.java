package io.groupkeeper.spring.extras;

import io.groupkeeper.kafka.container.AssignmentHook;
import io.groupkeeper.kafka.container.TransactionalSender;
import io.groupkeeper.spring.GroupKeeperListener;
import io.groupkeeper.spring.GroupKeeperSeekAware;
import io.groupkeeper.spring.ListenerIdleEvent;
import java.util.Collection;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * A service with a transactional read-process-write listener (its outputs and dead letters commit with its input
 * positions), a listener that positions its partitions itself ({@link GroupKeeperSeekAware}), and one that reports
 * being idle ({@link ListenerIdleEvent}).
 */
@SpringBootApplication
public class ExtrasApp {

    /** Each input becomes "out:<value>" on {@code app.out}; values starting with "poison" fail after sending. */
    @Component
    public static class Enricher {
        public final AtomicInteger poisonAttempts = new AtomicInteger();

        @Value("${app.out}")
        String out;

        @GroupKeeperListener(id = "enrich", group = "${app.group}", topics = "${app.in}", transactional = "true")
        void enrich(ConsumerRecord<String, String> in, TransactionalSender<String, String> sender) {
            sender.send(out, in.key(), "out:" + in.value());
            if (in.value().startsWith("poison")) {
                poisonAttempts.incrementAndGet();
                throw new IllegalStateException("cannot enrich " + in.value());
            }
        }
    }

    /** Starts partition 0 of {@code app.positioned} at offset 3, as if read from its own store. */
    @Component
    public static class Positioned implements GroupKeeperSeekAware {
        public final Queue<String> seen = new ConcurrentLinkedQueue<>();
        public final Queue<String> assigned = new ConcurrentLinkedQueue<>();

        @GroupKeeperListener(id = "positioned", group = "${app.group}-positioned", topics = "${app.positioned}")
        void handle(String value) {
            seen.add(value);
        }

        @Override
        public void onPartitionsAssigned(
                String listenerId, Collection<TopicPartition> partitions, AssignmentHook.Seeker seeker) {
            partitions.forEach(tp -> {
                assigned.add(listenerId + ":" + tp);
                seeker.seek(tp, 3);
            });
        }
    }

    /** A listener on a quiet topic that reports itself idle every 300 ms. */
    @Component
    public static class Quiet {
        public final Queue<ListenerIdleEvent> idle = new ConcurrentLinkedQueue<>();

        @GroupKeeperListener(
                id = "quiet",
                group = "${app.group}-quiet",
                topics = "${app.quiet}",
                idleEventInterval = "300ms")
        void handle(List<String> values) {}

        @EventListener
        void onIdle(ListenerIdleEvent event) {
            idle.add(event);
        }
    }
}
