package io.groupkeeper.example.service;

import io.groupkeeper.spring.GroupKeeperListener;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;

/**
 * A billing service: bills every order of the {@code orders} topic in the consumer group {@code billing} (offsets
 * and ownership in ZooKeeper). An order whose amount is not a number is dead-lettered at once
 * ({@code orders-dlt}); any other failure is retried (application.properties).
 *
 * <pre>
 * java -jar example-service/target/groupkeeper-example-service.jar \
 *     --groupkeeper.zookeeper.connect=127.0.0.1:2181 --spring.kafka.bootstrap-servers=127.0.0.1:9092
 * </pre>
 */
@SpringBootApplication
public class BillingService {

    public static void main(String[] args) {
        SpringApplication.run(BillingService.class, args);
    }

    @Component
    public static class Billing {
        private static final Logger LOG = LoggerFactory.getLogger(Billing.class);
        final AtomicLong billed = new AtomicLong();
        final AtomicLong cents = new AtomicLong();

        /** A value ends with its amount in cents after the last '-', e.g. {@code order-17-1250} (or is just {@code 1250}). */
        @GroupKeeperListener(
                group = "${billing.group:billing}",
                topics = "${billing.topic:orders}",
                concurrency = "${billing.concurrency:2}")
        void bill(ConsumerRecord<String, String> order) {
            String value = order.value().trim();
            long amount = Long.parseLong(value.substring(value.lastIndexOf('-') + 1)); // else dead-lettered at once
            cents.addAndGet(amount);
            LOG.info(
                    "billed order {} ({}-{}@{}): {} cents; {} orders so far",
                    order.key(),
                    order.topic(),
                    order.partition(),
                    order.offset(),
                    amount,
                    billed.incrementAndGet());
        }

        public long billed() {
            return billed.get();
        }
    }
}
