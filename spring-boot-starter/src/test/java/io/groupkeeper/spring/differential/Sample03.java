package io.groupkeeper.spring.differential;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.support.converter.BatchMessagingMessageConverter;
import org.springframework.kafka.support.converter.JsonMessageConverter;
import org.springframework.kafka.support.converter.RecordMessageConverter;

/**
 * Spring Kafka's sample-03 (a batch listener that sends with the {@code KafkaTemplate} in the container's transaction,
 * a second batch listener reading those outputs): its application class with its beans, and {@link #LISTENER}, the
 * listener class's source as the sample has it, with the topics and ids from properties and what it receives kept in
 * {@link Observed} instead of logged (and no {@code System.in.read()}). The differential test compiles that source
 * twice: as it is ({@code @KafkaListener}) and with the annotation swapped for {@code @GroupKeeperListener}.
 * Sample-03's {@code @SpringBootApplication} without its component scan (the package holds the other samples).
 * Properties: sample-03's {@code application.yml} ({@link #PROPERTIES}).
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration // (no component scan: the listener class is the compiled one)
public class Sample03 {

    public static final String[] PROPERTIES = {
        "spring.kafka.producer.value-serializer=org.springframework.kafka.support.serializer.JsonSerializer",
        "spring.kafka.producer.transaction-id-prefix=tx.",
        "spring.kafka.consumer.value-deserializer=org.apache.kafka.common.serialization.ByteArrayDeserializer",
        "spring.kafka.consumer.properties.isolation.level=read_committed",
        "spring.kafka.listener.type=batch"
    };

    public static final String LISTENER = """
            package sample03;

            import java.io.IOException;
            import java.util.List;
            import io.groupkeeper.spring.differential.Sample03.Foo2;
            import io.groupkeeper.spring.differential.Sample03.Observed;
            import org.springframework.beans.factory.annotation.Autowired;
            import org.springframework.beans.factory.annotation.Value;
            import org.springframework.kafka.annotation.KafkaListener;
            import org.springframework.kafka.core.KafkaTemplate;
            import org.springframework.stereotype.Component;

            @Component
            public class Listener {

                @Autowired
                private KafkaTemplate<String, String> kafkaTemplate;

                @Autowired
                private Observed observed;

                @Value("${app.topic3}")
                private String topic3;

                @KafkaListener(id = "${app.group}2", topics = "${app.topic2}")
                public void listen1(List<Foo2> foos) throws IOException {
                    observed.received1.addAll(foos.stream().map(Foo2::getFoo).toList());
                    foos.forEach(f -> kafkaTemplate.send(topic3, f.getFoo().toUpperCase()));
                }

                @KafkaListener(id = "${app.group}3", topics = "${app.topic3}")
                public void listen2(List<String> in) {
                    observed.received2.addAll(in);
                }
            }
            """;

    @Bean
    public RecordMessageConverter converter() {
        return new JsonMessageConverter();
    }

    @Bean
    public BatchMessagingMessageConverter batchConverter() {
        return new BatchMessagingMessageConverter(converter());
    }

    @Bean
    Observed observed() {
        return new Observed();
    }

    /** What the listeners received. */
    public static class Observed {
        public final Queue<String> received1 = new ConcurrentLinkedQueue<>();
        public final Queue<String> received2 = new ConcurrentLinkedQueue<>();
    }

    /** sample-03's payload type. */
    public static class Foo2 {
        private String foo;

        public Foo2() {}

        public Foo2(String foo) {
            this.foo = foo;
        }

        public String getFoo() {
            return this.foo;
        }

        public void setFoo(String foo) {
            this.foo = foo;
        }

        @Override
        public String toString() {
            return "Foo2 [foo=" + this.foo + "]";
        }
    }
}
