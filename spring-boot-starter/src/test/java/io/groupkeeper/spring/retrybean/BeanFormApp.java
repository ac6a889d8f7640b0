package io.groupkeeper.spring.retrybean;

import io.groupkeeper.spring.GroupKeeperListener;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.stereotype.Component;

/**
 * A listener without {@code @RetryableTopic}: its retry topics come from Boot's {@code RetryTopicConfiguration} bean
 * ({@code spring.kafka.retry.topic.*}), as they would for a {@code @KafkaListener}.
 */
@SpringBootApplication
public class BeanFormApp {

    @Component
    public static class Plain {
        /** value@topic per call. */
        public final Queue<String> calls = new ConcurrentLinkedQueue<>();

        @GroupKeeperListener(id = "${app.group}", topics = "${app.topic}")
        public void listen(String in, @Header(KafkaHeaders.RECEIVED_TOPIC) String topic) {
            calls.add(in + "@" + topic);
            if (in.startsWith("fail")) {
                throw new IllegalStateException("failed: " + in);
            }
        }
    }
}
