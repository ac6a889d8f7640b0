package io.groupkeeper.kafka.container;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Rules from exception class to {@link ErrorAction}. The most specific rule wins: the one whose class is the nearest
 * superclass (or the class itself) of the thrown exception; among equally near ones (interfaces), the first declared.
 * If no rule matches the exception, its causes are tried in turn; then {@link Builder#otherwise}.
 *
 * <pre>{@code
 * ErrorPolicy.builder()
 *         .on(IllegalArgumentException.class, ErrorAction.deadLetter())                 // a bad record: no retry
 *         .on(java.io.IOException.class, ErrorAction.retry(5, Backoff.fixed(Duration.ofSeconds(1))).thenStopPartition())
 *         .otherwise(ErrorAction.retry(3, Backoff.fixed(Duration.ofMillis(200))).thenDeadLetter())
 *         .build();
 * }</pre>
 *
 * <p>A record that cannot be deserialized is not handled at all: it goes straight to
 * {@link Builder#deserializationFailure} (default {@link Recovery#DEAD_LETTER}), with the raw bytes.
 */
public final class ErrorPolicy {

    /** 3 attempts, 1 s apart, then dead-letter; deserialization failures dead-lettered at once. */
    public static ErrorPolicy defaults() {
        return builder().build();
    }

    private final Map<Class<? extends Throwable>, ErrorAction> rules;
    private final ErrorAction otherwise;
    private final Recovery deserializationFailure;

    private ErrorPolicy(Builder b) {
        this.rules = new LinkedHashMap<>(b.rules);
        this.otherwise = b.otherwise;
        this.deserializationFailure = b.deserializationFailure;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The action for {@code failure}. */
    public ErrorAction actionFor(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            ErrorAction best = null;
            int bestDistance = Integer.MAX_VALUE;
            for (Map.Entry<Class<? extends Throwable>, ErrorAction> rule : rules.entrySet()) {
                int d = distance(t.getClass(), rule.getKey());
                if (d < bestDistance) {
                    bestDistance = d;
                    best = rule.getValue();
                }
            }
            if (best != null) {
                return best;
            }
        }
        return otherwise;
    }

    public Recovery deserializationFailure() {
        return deserializationFailure;
    }

    /** Whether any outcome of this policy publishes to a dead-letter topic. */
    public boolean mayDeadLetter() {
        return deserializationFailure == Recovery.DEAD_LETTER
                || otherwise.recovery() == Recovery.DEAD_LETTER
                || rules.values().stream().anyMatch(a -> a.recovery() == Recovery.DEAD_LETTER);
    }

    /** Inheritance steps from {@code type} up to {@code target}; MAX_VALUE if not assignable. */
    private static int distance(Class<?> type, Class<?> target) {
        if (!target.isAssignableFrom(type)) {
            return Integer.MAX_VALUE;
        }
        int d = 0;
        for (Class<?> c = type; c != null; c = c.getSuperclass(), d++) {
            if (c == target) {
                return d;
            }
        }
        return d + 1; // an interface: after every class on the way
    }

    @Override
    public String toString() {
        List<String> parts = new ArrayList<>();
        rules.forEach((k, v) -> parts.add(k.getSimpleName() + " -> " + v));
        parts.add("otherwise -> " + otherwise);
        parts.add("not deserializable -> " + deserializationFailure);
        return String.join("; ", parts);
    }

    public static final class Builder {
        private final Map<Class<? extends Throwable>, ErrorAction> rules = new LinkedHashMap<>();
        private ErrorAction otherwise =
                ErrorAction.retry(3, Backoff.fixed(Duration.ofSeconds(1))).thenDeadLetter();
        private Recovery deserializationFailure = Recovery.DEAD_LETTER;

        private Builder() {}

        /** A rule; declaring the same class twice fails. */
        public Builder on(Class<? extends Throwable> type, ErrorAction action) {
            Objects.requireNonNull(type, "exception type");
            Objects.requireNonNull(action, () -> "action for " + type.getName());
            if (rules.putIfAbsent(type, action) != null) {
                throw new IllegalArgumentException("error policy: " + type.getName() + " has two rules");
            }
            return this;
        }

        /** The action when no rule matches; default 3 attempts, 1 s apart, then dead-letter. */
        public Builder otherwise(ErrorAction action) {
            this.otherwise = Objects.requireNonNull(action, "otherwise");
            return this;
        }

        /** What happens to a record that does not deserialize (never retried); default dead-letter. */
        public Builder deserializationFailure(Recovery recovery) {
            this.deserializationFailure = Objects.requireNonNull(recovery, "deserializationFailure");
            return this;
        }

        public ErrorPolicy build() {
            return new ErrorPolicy(this);
        }
    }
}
