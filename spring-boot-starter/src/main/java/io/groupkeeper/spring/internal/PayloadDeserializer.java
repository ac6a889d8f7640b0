package io.groupkeeper.spring.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The configured value deserializer, followed by a conversion into the payload type a listener method declares: as is
 * when the deserializer already produced that type; between {@code String} and {@code byte[]} by UTF-8; otherwise JSON
 * (Jackson, unknown properties ignored, as Spring Kafka's {@code JsonDeserializer}) from the text or bytes. A
 * conversion that fails is a deserialization failure ({@link SerializationException} naming the type), so the
 * container's deserialization-failure recovery takes the raw record (dead-letter by default), not the retry policy.
 */
final class PayloadDeserializer implements Deserializer<Object> {

    static final ObjectMapper JSON =
            new ObjectMapper().findAndRegisterModules().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final Deserializer<Object> inner;
    private final JavaType target;
    private final PayloadJson json;
    private final PayloadJson.Reader reader;

    PayloadDeserializer(Deserializer<Object> inner, JavaType target) {
        this(inner, target, PayloadJson.DEFAULT);
    }

    /** With the JSON mapper {@code json} ({@link PayloadJson#select}: the application's where it has one). */
    PayloadDeserializer(Deserializer<Object> inner, JavaType target, PayloadJson json) {
        this.inner = inner;
        this.target = target;
        this.json = json;
        this.reader = json.reader(target);
    }

    /** Whether values of {@code type} need no conversion whatever the deserializer produces. */
    static boolean passThrough(JavaType type) {
        return type.getRawClass() == Object.class;
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        inner.configure(configs, isKey);
    }

    @Override
    public Object deserialize(String topic, byte[] data) {
        return convert(topic, inner.deserialize(topic, data));
    }

    @Override
    public Object deserialize(String topic, Headers headers, byte[] data) {
        return convert(topic, inner.deserialize(topic, headers, data));
    }

    @Override
    public Object deserialize(String topic, Headers headers, ByteBuffer data) {
        return convert(topic, inner.deserialize(topic, headers, data));
    }

    private Object convert(String topic, Object value) {
        Class<?> raw = target.getRawClass();
        if (value == null || raw.isInstance(value) && !(raw == String.class && json.jsonStrings())) {
            return value;
        }
        if (raw == String.class && value instanceof byte[] bytes && !json.jsonStrings()) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        if (raw == byte[].class && value instanceof String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
        try {
            if (value instanceof String s) {
                return reader.read(s);
            }
            if (value instanceof byte[] bytes) {
                return reader.read(bytes);
            }
        } catch (Exception e) {
            throw new SerializationException(
                    "a value of topic " + topic + " is not JSON for " + target
                            + " (read by " + json + "): "
                            + (e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()),
                    e);
        }
        throw new SerializationException(
                "a value of topic " + topic + " is a " + value.getClass().getName()
                        + ", which the listener's " + target + " cannot be made from (set spring.kafka.consumer"
                        + ".value-deserializer to one that produces text, bytes or the type itself)");
    }

    @Override
    public void close() {
        inner.close();
    }
}
