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

    /** Spring Kafka's documented way to validate @Valid payloads: a validator on the registrar. */
    @Bean
    org.springframework.kafka.annotation.KafkaListenerConfigurer validation() {
        return registrar -> registrar.setValidator(new org.springframework.validation.Validator() {
            @Override
            public boolean supports(Class<?> type) {
                return type == Foo.class;
            }

            @Override
            public void validate(Object target, org.springframework.validation.Errors errors) {
                if (((Foo) target).bar() > 10) { // as @Max(10)
                    errors.rejectValue("bar", "Max", "must be less than or equal to 10");
                }
            }
        });
    }

    public record Foo(int bar) {}

    @Component
    public static class Foos {
        public final Queue<Integer> seen = new ConcurrentLinkedQueue<>();
        public final Queue<Integer> calls = new ConcurrentLinkedQueue<>();

        @GroupKeeperListener(group = "${app.group}-valid", topics = "${app.topic}-valid")
        void onFoo(@org.springframework.validation.annotation.Validated Foo foo) {
            calls.add(foo.bar());
            seen.add(foo.bar());
        }
    }

    @Component
    public static class Orders {
        /** Per value, the nanoTime of each attempt. */
        public final Map<String, Queue<Long>> attempts = new ConcurrentHashMap<>();

        public final Queue<String> done = new ConcurrentLinkedQueue<>();
        /** Per value, the kafka_deliveryAttempt of each call. */
        public final Map<String, Queue<Integer>> deliveryAttempts = new ConcurrentHashMap<>();

        @GroupKeeperListener(group = "${app.group}", topics = "${app.topic}")
        void onOrder(
                String order,
                @org.springframework.messaging.handler.annotation.Header(
                                org.springframework.kafka.support.KafkaHeaders.DELIVERY_ATTEMPT)
                        int attempt) {
            deliveryAttempts
                    .computeIfAbsent(order, k -> new ConcurrentLinkedQueue<>())
                    .add(attempt);
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
