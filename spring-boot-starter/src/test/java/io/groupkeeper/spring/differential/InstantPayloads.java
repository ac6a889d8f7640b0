package io.groupkeeper.spring.differential;

import java.time.Instant;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.support.converter.JacksonJsonMessageConverter;
import org.springframework.kafka.support.converter.RecordMessageConverter;
import tools.jackson.databind.json.JsonMapper;

/**
 * A Boot 4 application reading JSON payloads into a record with a {@code java.time.Instant} field with Spring Kafka's
 * Jackson 3 converter over Boot's {@code JsonMapper} bean; {@link #LISTENER} is its listener's source, compiled as it
 * is and with the annotation swapped by the differential test.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class InstantPayloads {

    public static final String LISTENER = """
            package instants;

            import io.groupkeeper.spring.differential.InstantPayloads.Event;
            import io.groupkeeper.spring.differential.InstantPayloads.Observed;
            import org.springframework.beans.factory.annotation.Autowired;
            import org.springframework.kafka.annotation.KafkaListener;
            import org.springframework.stereotype.Component;

            @Component
            public class Listener {

                @Autowired
                private Observed observed;

                @KafkaListener(id = "${app.group}", topics = "${app.topic}")
                public void listen(Event event) {
                    observed.received.add(event.toString());
                }
            }
            """;

    /** The payload: an id and a time. */
    public record Event(String id, Instant at) {}

    @Bean
    RecordMessageConverter converter(JsonMapper mapper) {
        return new JacksonJsonMessageConverter(mapper);
    }

    @Bean
    Observed observed() {
        return new Observed();
    }

    /** What the listener received. */
    public static class Observed {
        public final Queue<String> received = new ConcurrentLinkedQueue<>();
    }
}
