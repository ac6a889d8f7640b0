package io.groupkeeper.spring.internal;

import io.groupkeeper.kafka.container.HandlerContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.springframework.core.convert.ConversionService;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.core.convert.support.DefaultConversionService;
import org.springframework.kafka.listener.adapter.ConsumerRecordMetadata;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.kafka.support.KafkaNull;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.support.MessageBuilder;

/**
 * How one parameter of a {@code @GroupKeeperListener} method gets its value from the records of one call: a single
 * record (record listeners) or the records of one partition from one fetch (batch listeners). Built and validated by
 * {@link ListenerMethod}.
 */
sealed interface ListenerArgument {

    ConversionService CONVERSIONS = DefaultConversionService.getSharedInstance();

    /** The argument for a call with {@code records} (one record for a record listener). */
    Object resolve(List<ConsumerRecord<Object, Object>> records);

    /**
     * Spring Kafka's {@code Acknowledgment} of a record listener in the manual ack modes: the container's
     * {@code HandlerContext.acknowledge()} and {@code nack(Duration)} for the record of this call.
     */
    record Ack() implements ListenerArgument {
        static final Acknowledgment INSTANCE = new Acknowledgment() {
            @Override
            public void acknowledge() {
                HandlerContext.acknowledge();
            }

            @Override
            public void nack(Duration sleep) {
                HandlerContext.nack(sleep);
            }

            @Override
            public String toString() {
                return "Acknowledgment of the groupkeeper container's current record";
            }
        };

        @Override
        public Object resolve(List<ConsumerRecord<Object, Object>> records) {
            return INSTANCE;
        }
    }

    /** The record itself, or the list of records of a batch. */
    record Records(boolean list) implements ListenerArgument {
        @Override
        public Object resolve(List<ConsumerRecord<Object, Object>> records) {
            return list ? records : records.get(0);
        }
    }

    /** The payload (already converted by {@link PayloadDeserializer}), or the list of payloads of a batch. */
    record Payload(boolean list) implements ListenerArgument {
        @Override
        public Object resolve(List<ConsumerRecord<Object, Object>> records) {
            if (!list) {
                return records.get(0).value();
            }
            List<Object> values = new ArrayList<>(records.size());
            records.forEach(r -> values.add(r.value()));
            return values;
        }
    }

    /** A Spring Messaging {@code Message<T>}: the payload with the headers of {@link AllHeaders}. */
    record Message(String group) implements ListenerArgument {
        @Override
        public Object resolve(List<ConsumerRecord<Object, Object>> records) {
            ConsumerRecord<Object, Object> r = records.get(0);
            return MessageBuilder.withPayload(r.value() == null ? KafkaNull.INSTANCE : r.value())
                    .copyHeaders(AllHeaders.of(r, group))
                    .build();
        }
    }

    /**
     * {@code @Header(name)}: one of Spring Kafka's {@code KafkaHeaders} names for the record's topic, partition,
     * offset, key, timestamp, timestamp type or the group, else the record header of that name (its last value);
     * converted to the parameter's type. For a batch, a {@code List} parameter gets one value per record, a single one
     * the first record's.
     */
    record HeaderValue(
            String name,
            String group,
            TypeDescriptor target,
            boolean list,
            boolean required,
            String defaultValue,
            String where)
            implements ListenerArgument {
        @Override
        public Object resolve(List<ConsumerRecord<Object, Object>> records) {
            if (!list) {
                return one(records.get(0));
            }
            List<Object> values = new ArrayList<>(records.size());
            records.forEach(r -> values.add(one(r)));
            return values;
        }

        private Object one(ConsumerRecord<Object, Object> r) {
            Object raw = switch (name) {
                case KafkaHeaders.RECEIVED_TOPIC -> r.topic();
                case KafkaHeaders.RECEIVED_PARTITION -> r.partition();
                case KafkaHeaders.OFFSET -> r.offset();
                case KafkaHeaders.RECEIVED_KEY -> r.key();
                case KafkaHeaders.RECEIVED_TIMESTAMP -> r.timestamp();
                case KafkaHeaders.TIMESTAMP_TYPE -> r.timestampType().name();
                case KafkaHeaders.GROUP_ID -> group;
                case KafkaHeaders.DELIVERY_ATTEMPT -> ListenerMethod.ATTEMPT.get();
                default -> {
                    Header h = r.headers().lastHeader(name);
                    yield h == null ? null : h.value();
                }
            };
            if (raw == null) {
                if (defaultValue != null) {
                    raw = defaultValue;
                } else if (required && !KafkaHeaders.RECEIVED_KEY.equals(name)) {
                    throw new MissingHeaderException(where + ": the record at " + r.topic() + "-" + r.partition() + "@"
                            + r.offset() + " has no header '" + name + "' (required)");
                } else {
                    return null;
                }
            }
            if (raw instanceof byte[] bytes && target.getType() != byte[].class) {
                raw = new String(bytes, StandardCharsets.UTF_8);
            }
            return CONVERSIONS.convert(raw, TypeDescriptor.forObject(raw), target);
        }
    }

    /** {@code @Headers Map<String, Object>}: every record header (bytes) and the {@code KafkaHeaders} entries. */
    record AllHeaders(String group) implements ListenerArgument {
        @Override
        public Object resolve(List<ConsumerRecord<Object, Object>> records) {
            return of(records.get(0), group);
        }

        static Map<String, Object> of(ConsumerRecord<Object, Object> r, String group) {
            Map<String, Object> all = new LinkedHashMap<>();
            for (Header h : r.headers()) {
                all.put(h.key(), h.value());
            }
            all.put(KafkaHeaders.RECEIVED_TOPIC, r.topic());
            all.put(KafkaHeaders.RECEIVED_PARTITION, r.partition());
            all.put(KafkaHeaders.OFFSET, r.offset());
            if (r.key() != null) {
                all.put(KafkaHeaders.RECEIVED_KEY, r.key());
            }
            all.put(KafkaHeaders.RECEIVED_TIMESTAMP, r.timestamp());
            all.put(KafkaHeaders.TIMESTAMP_TYPE, r.timestampType().name());
            all.put(KafkaHeaders.GROUP_ID, group);
            return all;
        }
    }

    /** Spring Messaging's {@code MessageHeaders} (with or without {@code @Headers}): the entries of {@link AllHeaders}. */
    record SpringHeaders(String group) implements ListenerArgument {
        @Override
        public Object resolve(List<ConsumerRecord<Object, Object>> records) {
            return new MessageHeaders(AllHeaders.of(records.get(0), group));
        }
    }

    /** Spring Kafka's {@code ConsumerRecordMetadata}: topic, partition, offset, timestamp of the record. */
    record Metadata() implements ListenerArgument {
        @Override
        public Object resolve(List<ConsumerRecord<Object, Object>> records) {
            ConsumerRecord<Object, Object> r = records.get(0);
            return new ConsumerRecordMetadata(
                    new RecordMetadata(
                            new TopicPartition(r.topic(), r.partition()),
                            r.offset(),
                            0,
                            r.timestamp(),
                            r.serializedKeySize(),
                            r.serializedValueSize()),
                    r.timestampType());
        }
    }

    /** {@code @FencingToken}: the partition's fencing token, as a {@code long} or an {@code OptionalLong}. */
    record Token(boolean optional, String where) implements ListenerArgument {
        @Override
        public Object resolve(List<ConsumerRecord<Object, Object>> records) {
            OptionalLong token = HandlerContext.fencingToken();
            if (optional) {
                return token;
            }
            ConsumerRecord<Object, Object> r = records.get(0);
            return token.orElseThrow(() -> new IllegalStateException(where + ": no fencing token for " + r.topic() + "-"
                    + r.partition() + ": this member no longer owns the partition"));
        }
    }

    /**
     * {@code TransactionalSender<K, V>}: what the method sends with it commits with the input position in one Kafka
     * transaction (a transactional listener).
     */
    record Sender() implements ListenerArgument {
        @Override
        public Object resolve(List<ConsumerRecord<Object, Object>> records) {
            return HandlerContext.sender();
        }
    }

    /** A required header a record does not have: not worth retrying, so the error policy's rules can single it out. */
    final class MissingHeaderException extends IllegalArgumentException {
        MissingHeaderException(String message) {
            super(message);
        }
    }
}
