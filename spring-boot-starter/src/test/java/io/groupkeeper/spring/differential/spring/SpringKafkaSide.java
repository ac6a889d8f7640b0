package io.groupkeeper.spring.differential.spring;

import io.groupkeeper.spring.differential.Sample01;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/** The sample on Spring for Apache Kafka: {@code @KafkaListener}. */
@SpringBootApplication
@Import(Sample01.class)
public class SpringKafkaSide {

    @Component
    static class Listener {
        private final Sample01.Body body;

        Listener(Sample01.Body body) {
            this.body = body;
        }

        @KafkaListener(id = "${app.group}", topics = "${app.topic}")
        void listen(Sample01.Foo value) {
            body.listen(value);
        }
    }
}
