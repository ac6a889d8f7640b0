package io.groupkeeper.spring.app;

import io.groupkeeper.spring.GroupKeeperListener;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;

/**
 * A small service: a record listener that refuses "poison" values (an exception) and dies on "fatal" ones (an Error,
 * which the error policy does not treat), and a batch listener of values.
 */
@SpringBootApplication
public class TestApp {

    @Component
    public static class Billing {
        public final Queue<ConsumerRecord<String, String>> seen = new ConcurrentLinkedQueue<>();
        public final AtomicInteger poisonAttempts = new AtomicInteger();

        @GroupKeeperListener(
                id = "billing",
                group = "${app.group}",
                topics = "${app.topic}",
                concurrency = "${app.concurrency:2}")
        void bill(ConsumerRecord<String, String> order) {
            if (order.value().startsWith("fatal")) {
                throw new BillingCrash("billing died on " + order.value());
            }
            if (order.value().startsWith("poison")) {
                poisonAttempts.incrementAndGet();
                throw new IllegalStateException("cannot bill " + order.value());
            }
            seen.add(order);
        }
    }

    /** What kills a worker: not an Exception, so no error policy rule applies. */
    public static class BillingCrash extends Error {
        private static final long serialVersionUID = 1L;

        public BillingCrash(String message) {
            super(message);
        }
    }

    @Component
    public static class Audit {
        public final Queue<String> seen = new ConcurrentLinkedQueue<>();

        @GroupKeeperListener(id = "audit", group = "${app.group}-audit", topics = "${app.topic}")
        void audit(List<String> values) {
            seen.addAll(values);
        }
    }
}
