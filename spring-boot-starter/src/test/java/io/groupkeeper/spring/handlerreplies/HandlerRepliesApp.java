package io.groupkeeper.spring.handlerreplies;

import io.groupkeeper.spring.GroupKeeperListener;
import io.groupkeeper.spring.handlers.HandlersApp.Bar;
import io.groupkeeper.spring.handlers.HandlersApp.Foo;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.kafka.annotation.KafkaHandler;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.stereotype.Component;

/**
 * A class-level listener whose {@code @KafkaHandler} methods reply with {@code @SendTo}, as in Spring Kafka: to a
 * topic of their own, to the record's {@code kafka_replyTopic} (bare {@code @SendTo}), or not at all (no
 * {@code @SendTo}).
 */
@SpringBootApplication
public class HandlerRepliesApp {

    @Component
    @GroupKeeperListener(group = "${app.group}", topics = "${app.topic}")
    public static class Replying {
        public final List<String> seen = new CopyOnWriteArrayList<>();

        @KafkaHandler
        @SendTo("${app.topic}-replies")
        public String foo(Foo foo) {
            seen.add("foo:" + foo.name());
            return "foo:" + foo.name().toUpperCase();
        }

        @KafkaHandler
        public String bar(Bar bar) {
            seen.add("bar:" + bar.name());
            return "unsent:" + bar.name();
        }

        @KafkaHandler(isDefault = true)
        @SendTo
        public String other(Object other) {
            seen.add("other:" + other);
            return "other:" + other;
        }
    }
}
