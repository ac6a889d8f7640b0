package io.groupkeeper.spring.patterns;

import io.groupkeeper.spring.GroupKeeperListener;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;

/** A listener on the topics matching a pattern, as a {@code @KafkaListener(topicPattern = ...)}. */
@SpringBootApplication
public class PatternApp {

    @Component
    public static class Matching {
        public final List<String> seen = new CopyOnWriteArrayList<>();

        @GroupKeeperListener(group = "${app.group}", topicPattern = "${app.pattern}")
        void on(ConsumerRecord<String, String> r) {
            seen.add(r.topic() + ":" + r.value());
        }
    }
}
