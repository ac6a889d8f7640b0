package io.groupkeeper.spring.internal;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * A listener's {@code topicPattern}, as Spring Kafka's: the topics whose names match the regex (the whole name, as the
 * consumer's pattern subscription matches; internal topics excluded). Evaluated when the container is created, so a
 * topic created later is consumed after a restart (Spring's pattern subscription picks it up within
 * {@code metadata.max.age.ms}).
 */
final class TopicPatterns {

    private TopicPatterns() {
    }

    /** The endpoint with its topics: those matching its pattern now (sorted), or as given without a pattern. */
    static ListenerEndpoint resolve(ListenerEndpoint e, Map<String, Object> consumerProperties, Duration timeout) {
        if (e.topicPattern().isEmpty()) {
            return e;
        }
        Pattern pattern = Pattern.compile(e.topicPattern());
        Map<String, Object> adminProps = new HashMap<>();
        Set<String> known = AdminClientConfig.configNames();
        consumerProperties.forEach((k, v) -> {
            if (known.contains(k) && v != null) {
                adminProps.put(k, v);
            }
        });
        adminProps.put(AdminClientConfig.CLIENT_ID_CONFIG, "groupkeeper-" + e.group() + "-topic-pattern");
        Set<String> names;
        try (Admin admin = Admin.create(adminProps)) {
            names = admin.listTopics().names().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("groupkeeper listener '" + e.id() + "': interrupted listing topics for "
                    + "topicPattern '" + e.topicPattern() + "'", ie);
        } catch (Exception ex) {
            throw new IllegalStateException("groupkeeper listener '" + e.id() + "': cannot list Kafka's topics for "
                    + "topicPattern '" + e.topicPattern() + "' within " + timeout + ": " + ex, ex);
        }
        List<String> matching = names.stream().filter(n -> pattern.matcher(n).matches()).sorted().toList();
        if (matching.isEmpty()) {
            throw new IllegalStateException("groupkeeper listener '" + e.id() + "': topicPattern '"
                    + e.topicPattern() + "' matches no topic in Kafka; the pattern is evaluated at start (a topic "
                    + "created later is consumed after a restart): create a matching topic first, or list the topics");
        }
        return new ListenerEndpoint(e.id(), e.group(), matching, e.topicPattern(), e.concurrency(), e.errorPolicy(),
                e.deadLetterTopic(), e.autoStartup(), e.transactional(), e.idleEventInterval(), e.method());
    }
}
