package io.groupkeeper.spring.errors;

import io.groupkeeper.spring.GroupKeeperListener;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.stereotype.Component;
import org.springframework.util.backoff.FixedBackOff;

/** Spring Kafka's sample-01 error handling: a DefaultErrorHandler bean, DeadLetterPublishingRecoverer, FixedBackOff. */
@SpringBootApplication
public class ErrorsApp {

    @Bean
    DefaultErrorHandler errorHandler(KafkaTemplate<Object, Object> template) {
        return new DefaultErrorHandler(new DeadLetterPublishingRecoverer(template), new FixedBackOff(100L, 1));
    }

    @Component
    public static class Orders {
        /** Per value, the nanoTime of each attempt. */
        public final Map<String, Queue<Long>> attempts = new ConcurrentHashMap<>();
        public final Queue<String> done = new ConcurrentLinkedQueue<>();

        @GroupKeeperListener(group = "${app.group}", topics = "${app.topic}")
        void onOrder(String order) {
            attempts.computeIfAbsent(order, k -> new ConcurrentLinkedQueue<>()).add(System.nanoTime());
            if (order.startsWith("fail")) {
                throw new IllegalStateException("cannot take " + order);
            }
            if (order.startsWith("cast")) { // ClassCastException: not retryable in Spring's default classification
                throw new ClassCastException("not an order: " + order);
            }
            done.add(order);
        }
    }
}
