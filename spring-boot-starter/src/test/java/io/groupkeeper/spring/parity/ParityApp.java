package io.groupkeeper.spring.parity;

import io.groupkeeper.spring.GroupKeeperListener;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.kafka.listener.adapter.ConsumerRecordMetadata;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.stereotype.Component;

/**
 * Listener forms of Spring for Apache Kafka's reference that the starter honours as Spring does: a SpEL topic, the
 * group from {@code spring.kafka.consumer.group-id}, {@code @Headers MessageHeaders}, {@code ConsumerRecordMetadata},
 * and a dead-letter listener reading Spring's {@code kafka_dlt-*} headers.
 */
@SpringBootApplication
public class ParityApp {

    /** Spring Kafka's RecordFilterStrategy, applied to every listener as Boot applies it: true discards. */
    @org.springframework.context.annotation.Bean
    org.springframework.kafka.listener.adapter.RecordFilterStrategy<Object, Object> skipFilter() {
        return r -> String.valueOf(r.value()).startsWith("skip-");
    }

    @Component
    public static class Orders {
        public final Queue<String> seen = new ConcurrentLinkedQueue<>();
        public final Queue<String> threads = new ConcurrentLinkedQueue<>();

        @GroupKeeperListener(topics = "#{'${app.topic}'.toString()}")
        void onOrder(String order, @Headers MessageHeaders headers, ConsumerRecordMetadata meta) {
            threads.add(Thread.currentThread().getName());
            if (order.startsWith("poison")) {
                throw new IllegalStateException("cannot take " + order, new ArithmeticException("root cause"));
            }
            seen.add(order + "@" + headers.get(KafkaHeaders.RECEIVED_PARTITION) + ":" + headers.get(KafkaHeaders.OFFSET)
                    + " group " + headers.get(KafkaHeaders.GROUP_ID) + " meta " + meta.topic() + "-" + meta.partition()
                    + "@" + meta.offset());
        }
    }

    /** A listener of the dead-letter topic: reads Spring's headers, and fails on every record. */
    @Component
    public static class DeadLetters {
        public final Queue<Map<String, Object>> seen = new ConcurrentLinkedQueue<>();
        public final AtomicInteger attempts = new AtomicInteger();

        @GroupKeeperListener(group = "${app.group}-dlt", topics = "${app.topic}-dlt")
        void onDeadLetter(
                String value,
                @Header(KafkaHeaders.DLT_ORIGINAL_TOPIC) String topic,
                @Header(KafkaHeaders.DLT_ORIGINAL_PARTITION) byte[] partition,
                @Header(KafkaHeaders.DLT_ORIGINAL_OFFSET) byte[] offset,
                @Header(KafkaHeaders.DLT_ORIGINAL_TIMESTAMP) byte[] timestamp,
                @Header(KafkaHeaders.DLT_ORIGINAL_CONSUMER_GROUP) String group,
                @Header(KafkaHeaders.DLT_EXCEPTION_FQCN) String fqcn,
                @Header(KafkaHeaders.DLT_EXCEPTION_CAUSE_FQCN) String causeFqcn,
                @Header(KafkaHeaders.DLT_EXCEPTION_MESSAGE) String message,
                @Header(KafkaHeaders.DLT_EXCEPTION_STACKTRACE) String stackTrace) {
            if (attempts.incrementAndGet() == 1) {
                seen.add(Map.of(
                        "value",
                        value,
                        "topic",
                        topic,
                        "partition",
                        ByteBuffer.wrap(partition).getInt(),
                        "offset",
                        ByteBuffer.wrap(offset).getLong(),
                        "timestamp",
                        ByteBuffer.wrap(timestamp).getLong(),
                        "group",
                        group,
                        "fqcn",
                        fqcn,
                        "causeFqcn",
                        causeFqcn,
                        "message",
                        message,
                        "stackTrace",
                        stackTrace));
            }
            throw new IllegalStateException("a dead letter fails too: "
                    + new String(value.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8));
        }
    }

    /** A listener of a topic that does not exist when the application starts. */
    @Component
    public static class Late {
        public final Queue<String> seen = new ConcurrentLinkedQueue<>();

        @GroupKeeperListener(id = "${app.group}-late", topics = "${app.late-topic}") // idIsGroup: the id is the group
        void onLate(String value) {
            if (value.startsWith("poison")) {
                throw new IllegalStateException("cannot take " + value);
            }
            seen.add(value);
        }
    }
}
