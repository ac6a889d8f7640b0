package com.example.consumer;

import io.groupkeeper.spring.GroupKeeperListener;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.stereotype.Component;

/**
 * What a user moving from Spring for Apache Kafka writes: the listener signatures of a {@code @KafkaListener} service
 * (a JSON payload by type, Spring Kafka's {@code KafkaHeaders} for partition and offset, a batch of payloads) with
 * {@code @GroupKeeperListener} in place of {@code @KafkaListener}; two listeners on one group, no ids; orders processed
 * by key on 64 workers (docs/parallel.md).
 */
@SpringBootApplication
public class ConsumerApp {

    public static void main(String[] args) {
        SpringApplication.run(ConsumerApp.class, args);
    }

    /** The JSON body of an order and of a refund. */
    public record Order(String id, long amountCents) {
    }

    @Component
    public static class Orders {
        public final Queue<String> received = new ConcurrentLinkedQueue<>();

        @GroupKeeperListener(group = "starter-consumer", topics = "orders", ordering = "key", parallelism = "64")
        void onOrder(@Payload Order order, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
                     @Header(KafkaHeaders.OFFSET) long offset) {
            received.add(order.id() + "/" + order.amountCents() + "@" + partition + ":" + offset);
        }
    }

    @Component
    public static class Refunds {
        public final Queue<String> received = new ConcurrentLinkedQueue<>();

        @GroupKeeperListener(group = "starter-consumer", topics = "refunds")
        void onRefunds(List<Order> refunds, @Header(KafkaHeaders.OFFSET) List<Long> offsets) {
            for (int i = 0; i < refunds.size(); i++) {
                received.add(refunds.get(i).id() + "@" + offsets.get(i));
            }
        }
    }
}
