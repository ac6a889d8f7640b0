package io.groupkeeper.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.kafka.support.converter.JsonMessageConverter;

/**
 * Which JSON mapper converts payloads ({@link PayloadJson#select}): the application's Jackson 3 {@code JsonMapper}
 * bean where it has one (Boot 4's: {@code java.time} built in), the starter's Jackson 2 mapper where it has none, and
 * the mapper of the application's JSON converter bean, which also reads {@code String} payloads as JSON, as Spring
 * Kafka's converter does. Values go through {@link PayloadDeserializer} as a listener's do.
 */
class PayloadJsonTest {

    record Event(String id, Instant at) {}

    private static final String EVENT = "{\"id\":\"e1\",\"at\":\"2026-12-07T05:00:00.250Z\",\"unknown\":1}";

    @Test
    void theApplicationsJsonMapperBeanReadsAnInstant() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class))
                .run(ctx -> {
                    PayloadJson json = PayloadJson.select(ctx);
                    assertThat(json.toString()).contains("JsonMapper bean");
                    assertThat(read(json, Event.class, EVENT))
                            .isEqualTo(new Event("e1", Instant.parse("2026-12-07T05:00:00.250Z")));
                    assertThat(read(json, String.class, "plain"))
                            .as("a String payload as is")
                            .isEqualTo("plain");
                });
    }

    @Test
    void withoutAJsonMapperBeanTheStartersJackson2MapperReadsAsBefore() {
        new ApplicationContextRunner().run(ctx -> {
            PayloadJson json = PayloadJson.select(ctx);
            assertThat(json).isSameAs(PayloadJson.DEFAULT);
            record Plain(String id) {}
            assertThat(read(json, Plain.class, "{\"id\":\"p\",\"at\":1}")).isEqualTo(new Plain("p"));
            // Jackson 2 without jackson-datatype-jsr310 (not on this classpath): a deserialization failure, as before
            assertThatThrownBy(() -> read(json, Event.class, EVENT))
                    .isInstanceOf(SerializationException.class)
                    .hasMessageContaining("Java 8 date/time type");
        });
    }

    @Test
    void aJsonConverterBeansMapperAlsoReadsStringPayloadsAsJson() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class))
                .withBean(JsonMessageConverter.class)
                .run(ctx -> {
                    PayloadJson json = PayloadJson.select(ctx);
                    assertThat(json.toString()).contains("JsonMessageConverter");
                    assertThat(read(json, String.class, "\"ABC\"")).isEqualTo("ABC");
                    Deserializer<Object> bytes = new PayloadDeserializer(
                            cast(new ByteArrayDeserializer()),
                            PayloadDeserializer.JSON.constructType(String.class),
                            json);
                    assertThat(bytes.deserialize("t", "\"ABC\"".getBytes(StandardCharsets.UTF_8)))
                            .isEqualTo("ABC");
                });
    }

    static class StringListener {
        void onText(String text) {}
    }

    /** A RecordFilterStrategy sees the deserializer's values in Spring; JSON-decoded Strings are not those. */
    @Test
    void stringPayloadsReadAsJsonAreNotTheDeserializersValues() throws Exception {
        ListenerMethod m = ListenerMethod.of(
                new StringListener(), StringListener.class.getDeclaredMethod("onText", String.class), "g");
        assertThat(m.valuesAsDeserialized(StringDeserializer.class, PayloadJson.DEFAULT))
                .isTrue();
        new ApplicationContextRunner()
                .withBean(JsonMessageConverter.class)
                .run(ctx -> assertThat(m.valuesAsDeserialized(StringDeserializer.class, PayloadJson.select(ctx)))
                        .isFalse());
    }

    private static Object read(PayloadJson json, Class<?> type, String value) {
        Deserializer<Object> d = new PayloadDeserializer(
                cast(new StringDeserializer()), PayloadDeserializer.JSON.constructType(type), json);
        return d.deserialize("t", value.getBytes(StandardCharsets.UTF_8));
    }

    @SuppressWarnings("unchecked")
    private static Deserializer<Object> cast(Deserializer<?> d) {
        return (Deserializer<Object>) d;
    }
}
