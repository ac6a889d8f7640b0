package io.groupkeeper.spring.internal;

import java.util.List;

/**
 * One {@code @GroupKeeperListener} method with its resolved annotation attributes (placeholders resolved; "" = unset);
 * with a {@code topicPattern}, {@code topics} is empty until the container is created ({@link TopicPatterns}).
 */
public record ListenerEndpoint(
        String id,
        String group,
        List<String> topics,
        String topicPattern,
        String concurrency,
        String errorPolicy,
        String deadLetterTopic,
        String autoStartup,
        String transactional,
        String idleEventInterval,
        String ordering,
        String parallelism,
        ListenerMethod method) {

    /** The same listener on another set of topics (a {@code topicPattern}'s matches). */
    public ListenerEndpoint withTopics(List<String> topics) {
        return new ListenerEndpoint(
                id,
                group,
                List.copyOf(topics),
                topicPattern,
                concurrency,
                errorPolicy,
                deadLetterTopic,
                autoStartup,
                transactional,
                idleEventInterval,
                ordering,
                parallelism,
                method);
    }
}
