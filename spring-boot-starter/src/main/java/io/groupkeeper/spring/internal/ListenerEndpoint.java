package io.groupkeeper.spring.internal;

import java.util.List;

/** One {@code @GroupKeeperListener} method with its resolved annotation attributes (placeholders resolved; "" = unset). */
public record ListenerEndpoint(String id, String group, List<String> topics, String concurrency, String errorPolicy,
                               String deadLetterTopic, String autoStartup, String transactional,
                               String idleEventInterval, ListenerMethod method) {
}
