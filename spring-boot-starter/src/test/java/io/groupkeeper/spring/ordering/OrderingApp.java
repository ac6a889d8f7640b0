package io.groupkeeper.spring.ordering;

import io.groupkeeper.spring.GroupKeeperListener;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;

/** A listener with key ordering and 8 workers: it records, per key, the values in the order their calls began. */
@SpringBootApplication
public class OrderingApp {

    @Component
    public static class Slow {
        public final Map<String, List<String>> byKey = new ConcurrentHashMap<>();
        public final AtomicInteger inFlight = new AtomicInteger();
        public final AtomicInteger mostInFlight = new AtomicInteger();
        public final AtomicInteger keyOverlaps = new AtomicInteger();
        private final Map<String, AtomicInteger> busyKeys = new ConcurrentHashMap<>();

        @GroupKeeperListener(
                group = "${app.group}",
                topics = "${app.topic}",
                ordering = "${app.ordering:key}",
                parallelism = "8")
        void handle(ConsumerRecord<String, String> record) {
            AtomicInteger busy = busyKeys.computeIfAbsent(record.key(), k -> new AtomicInteger());
            if (busy.incrementAndGet() > 1) {
                keyOverlaps.incrementAndGet(); // another record of this key is being handled: key order broken
            }
            byKey.computeIfAbsent(record.key(), k -> new CopyOnWriteArrayList<>())
                    .add(record.value());
            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            LockSupport.parkNanos(5_000_000); // the handler's work: 5 ms (what the workers run in parallel)
            inFlight.decrementAndGet();
            busy.decrementAndGet();
        }
    }
}
