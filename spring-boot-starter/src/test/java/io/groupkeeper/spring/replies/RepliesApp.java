package io.groupkeeper.spring.replies;

import io.groupkeeper.spring.GroupKeeperListener;
import java.util.List;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.stereotype.Component;

/** Spring Kafka's reference forms of {@code @SendTo}: a fixed reply topic, the request's reply-topic header, a list. */
@SpringBootApplication
public class RepliesApp {

    @Component
    public static class Upper {
        @GroupKeeperListener(group = "${app.group}", topics = "${app.topic}")
        @SendTo("${app.topic}-replies")
        String upper(String in) {
            return in.equals("none") ? null : in.toUpperCase();
        }

        @GroupKeeperListener(group = "${app.group}-header", topics = "${app.topic}-asks")
        @SendTo
        List<String> split(String in) {
            return List.of(in.split(","));
        }
    }
}
