package io.groupkeeper.spring.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.Message;
import org.springframework.messaging.support.MessageBuilder;

/**
 * {@code @SendTo} on a record listener, as Spring Kafka's {@code MessagingMessageListenerAdapter} sends a result with
 * the reply template (Boot's: the application's {@code KafkaTemplate}): to the annotation's topic, or when it names
 * none to the record's {@code kafka_replyTopic} header; a null result sends nothing; a {@code Message} is sent as it is
 * (topic, correlation id and reply partition added when missing); an {@code Iterable} is split, one reply per element;
 * any other result is the payload of a reply with the request's key, its {@code kafka_correlationId} and its
 * {@code kafka_replyPartition} as the partition. Sent without waiting, as Spring does.
 */
final class SendToReplies {

    private final String topic; // null: the record's reply-topic header
    private final KafkaTemplate<Object, Object> template;

    SendToReplies(String topic, KafkaTemplate<Object, Object> template) {
        this.topic = topic == null || topic.isBlank() ? null : topic;
        this.template = template;
    }

    void reply(ConsumerRecord<Object, Object> request, Object result) {
        if (result == null) {
            return;
        }
        String to = topic != null ? topic : text(request, KafkaHeaders.REPLY_TOPIC);
        if (to == null && !(result instanceof Message<?>)) {
            return; // Spring: "No replyTopic to handle the reply" (debug)
        }
        if (result instanceof Message<?> m) {
            template.send(complete(m, to, request));
        } else if (result instanceof Iterable<?> many) {
            for (Object v : many) {
                if (v instanceof Message<?> m) {
                    template.send(complete(m, to, request));
                } else {
                    template.send(to, v);
                }
            }
        } else {
            MessageBuilder<Object> b = MessageBuilder.withPayload(result).setHeader(KafkaHeaders.TOPIC, to);
            byte[] correlation = bytes(request, KafkaHeaders.CORRELATION_ID);
            if (correlation != null) {
                b.setHeader(KafkaHeaders.CORRELATION_ID, correlation);
            }
            byte[] partition = bytes(request, KafkaHeaders.REPLY_PARTITION);
            if (partition != null) {
                b.setHeader(KafkaHeaders.PARTITION, ByteBuffer.wrap(partition).getInt());
            }
            if (request.key() != null) {
                b.setHeader(KafkaHeaders.KEY, request.key());
            }
            template.send(b.build());
        }
    }

    private static Message<?> complete(Message<?> reply, String to, ConsumerRecord<Object, Object> request) {
        MessageBuilder<?> b = MessageBuilder.fromMessage(reply);
        if (to != null && reply.getHeaders().get(KafkaHeaders.TOPIC) == null) {
            b.setHeader(KafkaHeaders.TOPIC, to);
        }
        byte[] correlation = bytes(request, KafkaHeaders.CORRELATION_ID);
        if (correlation != null && reply.getHeaders().get(KafkaHeaders.CORRELATION_ID) == null) {
            b.setHeader(KafkaHeaders.CORRELATION_ID, correlation);
        }
        byte[] partition = bytes(request, KafkaHeaders.REPLY_PARTITION);
        if (partition != null && reply.getHeaders().get(KafkaHeaders.PARTITION) == null) {
            b.setHeader(KafkaHeaders.PARTITION, ByteBuffer.wrap(partition).getInt());
        }
        return b.build();
    }

    private static byte[] bytes(ConsumerRecord<Object, Object> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : h.value();
    }

    private static String text(ConsumerRecord<Object, Object> r, String name) {
        byte[] b = bytes(r, name);
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
