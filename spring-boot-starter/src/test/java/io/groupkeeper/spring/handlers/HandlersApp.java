package io.groupkeeper.spring.handlers;

import io.groupkeeper.spring.GroupKeeperListener;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.kafka.annotation.KafkaHandler;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.stereotype.Component;

/**
 * Spring Kafka's sample-02 shape: a class-level listener whose {@code @KafkaHandler} methods take the payload types the
 * value deserializer produces (here from a {@code type} header), one of them the default; and one without a default.
 */
@SpringBootApplication
public class HandlersApp {

    public record Foo(String name) {}

    public record Bar(String name) {}

    /** As Spring Kafka's JsonDeserializer with type headers: the value's class from the record's {@code type} header. */
    public static class TypedDeserializer implements Deserializer<Object> {
        @Override
        public Object deserialize(String topic, byte[] data) {
            return new String(data, StandardCharsets.UTF_8);
        }

        @Override
        public Object deserialize(String topic, Headers headers, byte[] data) {
            org.apache.kafka.common.header.Header type = headers.lastHeader("type");
            String text = new String(data, StandardCharsets.UTF_8);
            String t = type == null ? "" : new String(type.value(), StandardCharsets.UTF_8);
            return switch (t) {
                case "foo" -> new Foo(text);
                case "bar" -> new Bar(text);
                case "int" -> Integer.valueOf(text);
                default -> text;
            };
        }
    }

    @Component
    @GroupKeeperListener(group = "${app.group}", topics = "${app.topic}")
    public static class Multi {
        public final List<String> seen = new CopyOnWriteArrayList<>();

        @KafkaHandler
        public void foo(Foo foo) {
            seen.add("foo:" + foo.name());
        }

        @KafkaHandler
        public void bar(Bar bar, @Header(KafkaHeaders.OFFSET) long offset) {
            seen.add("bar:" + bar.name() + "@" + offset);
        }

        @KafkaHandler
        public void number(int n) {
            seen.add("int:" + n);
        }

        @KafkaHandler(isDefault = true)
        public void unknown(Object other) {
            seen.add("default:" + other);
        }
    }

    @Component
    @GroupKeeperListener(group = "${app.group}-strict", topics = "${app.topic}-strict")
    public static class NoDefault {
        public final List<String> seen = new CopyOnWriteArrayList<>();

        @KafkaHandler
        public void foo(Foo foo) {
            seen.add("foo:" + foo.name());
        }
    }
}
