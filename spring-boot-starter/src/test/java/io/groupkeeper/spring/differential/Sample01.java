package io.groupkeeper.spring.differential;

import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.backoff.FixedBackOff;

/**
 * The application side of Spring Kafka's sample-01, shared by both runs of the differential test: its error handler
 * bean and the listener's body (what the application observes). Only the annotated entry point differs per run.
 */
@Configuration(proxyBeanMethods = false)
public class Sample01 {

    @Bean
    DefaultErrorHandler errorHandler(KafkaTemplate<Object, Object> template) {
        return new DefaultErrorHandler(new DeadLetterPublishingRecoverer(template), new FixedBackOff(100L, 1));
    }

    @Bean // sample-01's converter: JSON into the listener's parameter type
    org.springframework.kafka.support.converter.RecordMessageConverter converter() {
        return new org.springframework.kafka.support.converter.JsonMessageConverter();
    }

    /** sample-01's payload type. */
    public record Foo(String foo) {}

    @Bean
    Body body() {
        return new Body();
    }

    /** The listener's body: fails on values starting with "fail", counts attempts, keeps what it handled. */
    public static class Body {
        public final Queue<String> handled = new ConcurrentLinkedQueue<>();
        public final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();

        public void listen(Foo payload) {
            String value = payload.foo();
            attempts.computeIfAbsent(value, v -> new AtomicInteger()).incrementAndGet();
            if (value.startsWith("fail")) {
                throw new IllegalStateException("failed: " + value);
            }
            handled.add(value);
        }
    }
}
