package io.groupkeeper.spring.clients;

import io.groupkeeper.kafka.container.TransactionalSender;
import io.groupkeeper.spring.GroupKeeperListener;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * A service with Kafka clients of both kinds: a {@code @GroupKeeperListener} forwarding {@code app.in} to
 * {@code app.out} in transactions (its consumer and producers bound by the starter), and Spring Kafka's own
 * {@code KafkaTemplate} (the test writes with it) and {@code @KafkaListener} on {@code app.out} (bound by Spring Kafka's
 * {@code MicrometerProducerListener}/{@code MicrometerConsumerListener}).
 */
@SpringBootApplication
public class ClientsApp {

    @Component
    public static class Forwarder {
        public final Queue<String> seen = new ConcurrentLinkedQueue<>();

        @Value("${app.out}")
        String out;

        @GroupKeeperListener(id = "forward", group = "${app.group}", topics = "${app.in}", transactional = "true")
        void forward(ConsumerRecord<String, String> in, TransactionalSender<String, String> sender) {
            sender.send(out, in.key(), "out:" + in.value());
            seen.add(in.value());
        }
    }

    @Component
    public static class SpringSide {
        public final Queue<String> seen = new ConcurrentLinkedQueue<>();

        @KafkaListener(id = "spring-side", topics = "${app.out}", groupId = "${app.group}-spring")
        void read(String value) {
            seen.add(value);
        }
    }
}
