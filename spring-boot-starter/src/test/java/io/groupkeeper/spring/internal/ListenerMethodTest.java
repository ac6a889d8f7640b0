package io.groupkeeper.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.handler.annotation.Payload;

/** Listener signatures as Spring Kafka users write them, resolved without servers. */
class ListenerMethodTest {

    record Order(String id, int amount) {}

    /** Listener methods of every supported shape; each records what it received. */
    static final class Listeners {
        final List<Object> calls = new ArrayList<>();

        void jsonWithHeaders(
                Order order,
                @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
                @Header(KafkaHeaders.OFFSET) long offset,
                @Header(KafkaHeaders.RECEIVED_TOPIC) String topic,
                @Header(KafkaHeaders.RECEIVED_KEY) String key,
                @Header(KafkaHeaders.RECEIVED_TIMESTAMP) long timestamp,
                @Header(KafkaHeaders.GROUP_ID) String group) {
            calls.add(List.of(order, partition, offset, topic, key, timestamp, group));
        }

        void payloadAnnotatedAfterHeader(@Header("trace") String trace, @Payload String value) {
            calls.add(List.of(trace, value));
        }

        void optionalHeader(
                String value,
                @Header(name = "missing", required = false) String missing,
                @Header(name = "also-missing", defaultValue = "7") int defaulted) {
            calls.add(Optional.ofNullable(missing).map(Object.class::cast).orElse("absent") + "/" + defaulted + "/"
                    + value);
        }

        void bytes(byte[] value, @Header("trace") byte[] trace) {
            calls.add(new String(value, StandardCharsets.UTF_8) + "+" + new String(trace, StandardCharsets.UTF_8));
        }

        void record(ConsumerRecord<String, String> r) {
            calls.add(r.offset());
        }

        void message(Message<Order> m) {
            calls.add(List.of(m.getPayload(), m.getHeaders().get(KafkaHeaders.OFFSET)));
        }

        void all(String value, @Headers Map<String, Object> headers) {
            calls.add(headers.get(KafkaHeaders.RECEIVED_PARTITION) + "/"
                    + new String((byte[]) headers.get("trace"), StandardCharsets.UTF_8));
        }

        void batch(
                List<Order> orders,
                @Header(KafkaHeaders.OFFSET) List<Long> offsets,
                @Header(KafkaHeaders.RECEIVED_PARTITION) int partition) {
            calls.add(List.of(orders, offsets, partition));
        }

        void batchOfRecords(List<ConsumerRecord<String, Order>> records) {
            calls.add(records.size());
        }

        void twoPayloads(String a, String b) {}

        void acknowledging(String value, Acknowledgment ack) {}

        void acknowledgingBatch(List<String> values, Acknowledgment ack) {}

        void records(ConsumerRecords<String, String> all) {}

        void nothing(@Header(KafkaHeaders.OFFSET) long offset) {}

        void rawList(@SuppressWarnings("rawtypes") List values) {}

        void tokenAsText(String value, @io.groupkeeper.spring.FencingToken String token) {}

        void tokenOutsideAHandler(String value, @io.groupkeeper.spring.FencingToken java.util.OptionalLong token) {
            calls.add(token);
        }
    }

    private final Listeners listeners = new Listeners();

    private ListenerMethod method(String name) {
        for (Method m : Listeners.class.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                return ListenerMethod.of(listeners, m, "billing");
            }
        }
        throw new IllegalArgumentException(name);
    }

    /** A record as the container hands it over: the value through the method's value deserializer. */
    private static ConsumerRecord<Object, Object> record(
            ListenerMethod m, int partition, long offset, String key, String value, String trace) {
        RecordHeaders headers = new RecordHeaders();
        if (trace != null) {
            headers.add("trace", trace.getBytes(StandardCharsets.UTF_8));
        }
        Deserializer<Object> values = m.valueDeserializer(stringDeserializer());
        Object v = values.deserialize("orders", headers, value.getBytes(StandardCharsets.UTF_8));
        return new ConsumerRecord<>(
                "orders",
                partition,
                offset,
                1_700_000_000_000L,
                TimestampType.CREATE_TIME,
                0,
                0,
                key,
                v,
                headers,
                Optional.empty());
    }

    @SuppressWarnings("unchecked")
    private static Deserializer<Object> stringDeserializer() {
        return (Deserializer<Object>) (Deserializer<?>) new StringDeserializer();
    }

    @Test
    void aJsonPayloadAndSpringKafkasHeaderNames() throws Exception {
        ListenerMethod m = method("jsonWithHeaders");
        assertThat(m.batch()).isFalse();
        m.recordHandler().handle(record(m, 3, 42, "k1", "{\"id\":\"o-1\",\"amount\":5,\"extra\":true}", null));
        assertThat(listeners.calls)
                .containsExactly(List.of(new Order("o-1", 5), 3, 42L, "orders", "k1", 1_700_000_000_000L, "billing"));
    }

    @Test
    void payloadAnnotationAndARecordHeaderByName() throws Exception {
        ListenerMethod m = method("payloadAnnotatedAfterHeader");
        m.recordHandler().handle(record(m, 0, 1, null, "plain text", "abc"));
        assertThat(listeners.calls).containsExactly(List.of("abc", "plain text"));
    }

    @Test
    void optionalAndDefaultedHeaders() throws Exception {
        ListenerMethod m = method("optionalHeader");
        m.recordHandler().handle(record(m, 0, 1, null, "v", null));
        assertThat(listeners.calls).containsExactly("absent/7/v");
    }

    @Test
    void aRequiredHeaderThatIsMissingFailsTheRecordNamingIt() {
        ListenerMethod m = method("payloadAnnotatedAfterHeader");
        assertThatThrownBy(() -> m.recordHandler().handle(record(m, 2, 9, null, "v", null)))
                .isInstanceOf(ListenerArgument.MissingHeaderException.class)
                .hasMessageContaining("orders-2@9")
                .hasMessageContaining("'trace'");
        assertThat(listeners.calls).isEmpty();
    }

    @Test
    void bytesStayBytes() throws Exception {
        ListenerMethod m = method("bytes");
        m.recordHandler().handle(record(m, 0, 1, null, "payload", "t"));
        assertThat(listeners.calls).containsExactly("payload+t");
    }

    @Test
    void recordsMessagesAndAllHeaders() throws Exception {
        ListenerMethod r = method("record");
        r.recordHandler().handle(record(r, 0, 5, null, "x", null));
        ListenerMethod msg = method("message");
        msg.recordHandler().handle(record(msg, 0, 6, null, "{\"id\":\"o\",\"amount\":1}", null));
        ListenerMethod all = method("all");
        all.recordHandler().handle(record(all, 4, 7, null, "x", "tr"));
        assertThat(listeners.calls).containsExactly(5L, List.of(new Order("o", 1), 6L), "4/tr");
    }

    @Test
    void aBatchOfPayloadsWithAListHeaderAndAScalarOne() throws Exception {
        ListenerMethod m = method("batch");
        assertThat(m.batch()).isTrue();
        m.batchHandler()
                .handle(List.of(
                        record(m, 1, 10, null, "{\"id\":\"a\",\"amount\":1}", null),
                        record(m, 1, 11, null, "{\"id\":\"b\",\"amount\":2}", null)));
        assertThat(listeners.calls)
                .containsExactly(List.of(List.of(new Order("a", 1), new Order("b", 2)), List.of(10L, 11L), 1));

        ListenerMethod records = method("batchOfRecords");
        assertThat(records.batch()).isTrue();
        records.batchHandler().handle(List.of(record(records, 0, 1, null, "{\"id\":\"c\",\"amount\":3}", null)));
        assertThat(listeners.calls).last().isEqualTo(1);
    }

    @Test
    void aValueThatIsNotJsonForThePayloadTypeIsADeserializationFailure() {
        ListenerMethod m = method("jsonWithHeaders");
        assertThatThrownBy(() -> record(m, 0, 1, null, "not json", null))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("topic orders")
                .hasMessageContaining(Order.class.getName());
    }

    @Test
    void rawRecordsKeepTheConfiguredDeserializer() {
        Deserializer<Object> configured = stringDeserializer();
        assertThat(method("record").valueDeserializer(configured)).isSameAs(configured);
        assertThat(method("batchOfRecords").valueDeserializer(configured)).isSameAs(configured);
        assertThat(method("jsonWithHeaders").valueDeserializer(configured)).isNotSameAs(configured);
    }

    @Test
    void unsupportedSignaturesFailNamingTheMethodAndTheParameter() {
        assertThatThrownBy(() -> method("twoPayloads"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("twoPayloads(java.lang.String, java.lang.String)")
                .hasMessageContaining("parameter 2")
                .hasMessageContaining("a second data parameter");
        assertThat(method("acknowledging").takesAcknowledgment())
                .as("the ack mode decides (ContainerFactory)")
                .isTrue();
        assertThatThrownBy(() -> method("acknowledgingBatch"))
                .hasMessageContaining("parameter 2")
                .hasMessageContaining("Acknowledgment is supported on record listeners only");
        assertThatThrownBy(() -> method("records")).hasMessageContaining("ConsumerRecords is not supported");
        assertThatThrownBy(() -> method("nothing")).hasMessageContaining("no data parameter");
        assertThatThrownBy(() -> method("rawList")).hasMessageContaining("a raw List");
        assertThatThrownBy(() -> method("tokenAsText")).hasMessageContaining("@FencingToken takes a long");
    }

    @Test
    void aFencingTokenOutsideAContainersHandlerIsEmpty() throws Exception {
        ListenerMethod m = method("tokenOutsideAHandler");
        m.recordHandler().handle(record(m, 0, 1, null, "v", null));
        assertThat(listeners.calls).containsExactly(java.util.OptionalLong.empty());
    }
}
