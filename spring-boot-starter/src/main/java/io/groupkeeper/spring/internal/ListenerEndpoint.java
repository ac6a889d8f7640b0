package io.groupkeeper.spring.internal;

import java.util.List;

/**
 * One {@code @GroupKeeperListener} method with its resolved annotation attributes (placeholders resolved; "" = unset);
 * with a {@code topicPattern}, {@code topics} is empty until the container is created ({@link TopicPatterns}).
 */
public record ListenerEndpoint(String id, String group, List<String> topics, String topicPattern, String concurrency, String errorPolicy,
                               String deadLetterTopic, String autoStartup, String transactional,
                               String idleEventInterval, ListenerMethod method) {
}
