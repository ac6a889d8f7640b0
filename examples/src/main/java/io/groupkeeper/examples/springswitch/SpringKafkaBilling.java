package io.groupkeeper.examples.springswitch;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.annotation.KafkaListener;

/**
 * The listener as the Spring Kafka service has it. {@link GroupKeeperBilling} is the same class after the one change
 * docs/spring-boot.md asks for: {@code @KafkaListener(id = G, topics = T)} becomes
 * {@code @GroupKeeperListener(group = G, topics = T)}.
 */
public class SpringKafkaBilling {

    private final Ledger ledger;

    public SpringKafkaBilling(Ledger ledger) {
        this.ledger = ledger;
    }

    @KafkaListener(id = "${app.group}", topics = "${app.topic}")
    public void bill(ConsumerRecord<String, String> order) {
        ledger.received(order);
    }
}
