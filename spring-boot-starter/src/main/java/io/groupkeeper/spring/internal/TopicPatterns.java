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
 * consumer's pattern subscription matches; internal topics excluded, and so are the dead-letter topics
 * {@code <topic>-dlt} of matching topics, which the container itself creates). Evaluated when the container is created and
 * again every {@link #interval} ({@code GroupKeeperContainers} replaces the container when the set changed), as a
 * Kafka pattern subscription re-evaluates on each metadata refresh.
 */
final class TopicPatterns {

    private static final String DLT = "-dlt";

    private TopicPatterns() {}

    /** Kafka's {@code metadata.max.age.ms} of the consumer settings (default 5 minutes, as Kafka's). */
    static Duration interval(Map<String, Object> consumerProperties) {
        Object v = consumerProperties.get("metadata.max.age.ms");
        return v == null
                ? Duration.ofMinutes(5)
                : Duration.ofMillis(Long.parseLong(v.toString().trim()));
    }

    /** The endpoint with its topics: those matching its pattern now (sorted), or as given without a pattern. */
    static ListenerEndpoint resolve(ListenerEndpoint e, Map<String, Object> consumerProperties, Duration timeout) {
        if (e.topicPattern().isEmpty()) {
            return e;
        }
        return e.withTopics(matching(e, consumerProperties, timeout));
    }

    /** The topics matching the endpoint's pattern now, sorted; fails when none does or Kafka cannot be asked. */
    static List<String> matching(ListenerEndpoint e, Map<String, Object> consumerProperties, Duration timeout) {
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
            throw new IllegalStateException(
                    "groupkeeper listener '" + e.id() + "': interrupted listing topics for " + "topicPattern '"
                            + e.topicPattern() + "'",
                    ie);
        } catch (Exception ex) {
            throw new IllegalStateException(
                    "groupkeeper listener '" + e.id() + "': cannot list Kafka's topics for " + "topicPattern '"
                            + e.topicPattern() + "' within " + timeout + ": " + ex,
                    ex);
        }
        List<String> all = names.stream()
                .filter(n -> pattern.matcher(n).matches())
                .sorted()
                .toList();
        // not the dead-letter topics of matching topics (the container creates <topic>-dlt: a pattern would grow)
        List<String> matching = all.stream()
                .filter(n -> !(n.endsWith(DLT) && all.contains(n.substring(0, n.length() - DLT.length()))))
                .toList();
        if (matching.isEmpty()) {
            throw new IllegalStateException("groupkeeper listener '" + e.id() + "': topicPattern '"
                    + e.topicPattern() + "' matches no topic in Kafka; the pattern is evaluated at start (a topic "
                    + "created later is added while running): create a matching topic first, or list the topics");
        }
        return matching;
    }
}
