package io.groupkeeper.spring.templatetx;

import io.groupkeeper.spring.GroupKeeperListener;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.support.SendResult;
import org.springframework.stereotype.Component;

/**
 * A service with transactions configured ({@code spring.kafka.producer.transaction-id-prefix}) whose listener sends
 * with Boot's {@code KafkaTemplate}, as Spring Kafka's sample-03 does: each input becomes two outputs; a value starting
 * with "fail" throws after sending them.
 */
@SpringBootApplication
public class TemplateTxApp {

    @Component
    public static class Forwarder {
        public final Queue<CompletableFuture<SendResult<String, String>>> sent = new ConcurrentLinkedQueue<>();
        public final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
        private final KafkaTemplate<String, String> template;

        @Value("${app.out}")
        String out;

        Forwarder(KafkaTemplate<String, String> template) {
            this.template = template;
        }

        @GroupKeeperListener(id = "forward", group = "${app.group}", topics = "${app.in}")
        void forward(String value) {
            attempts.computeIfAbsent(value, v -> new AtomicInteger()).incrementAndGet();
            sent.add(template.send(out, value, "A:" + value));
            sent.add(template.send(out, value, "B:" + value));
            if (value.startsWith("fail")) {
                throw new IllegalStateException("cannot forward " + value);
            }
        }
    }
}
