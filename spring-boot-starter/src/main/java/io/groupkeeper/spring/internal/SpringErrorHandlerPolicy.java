package io.groupkeeper.spring.internal;

import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.Recovery;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;
import org.springframework.util.backoff.FixedBackOff;

/**
 * An application's {@code DefaultErrorHandler} bean as groupkeeper's {@link ErrorPolicy}, with Spring's meaning: its
 * {@code BackOff} run as Spring runs it (retries = the executions before {@code STOP}, so {@code FixedBackOff(100, 1)}
 * is 2 attempts 100 ms apart), then its recoverer — a {@code DeadLetterPublishingRecoverer} with the default
 * destination ({@code <topic>-dlt}, same partition) is dead-lettering — and its exception classification (the
 * not-retryable exceptions, Spring's defaults and the application's, recover at once). Records that do not deserialize
 * are recovered at once, as Spring's {@code DeserializationException} is not retryable.
 *
 * <p>What cannot be mapped — another handler class, a custom destination resolver or recoverer, retry listeners, a
 * back-off function, a back-off without end — throws naming it, so the start fails rather than ignoring it. This reads
 * some of Spring Kafka's private fields (4.0's and 4.1's names); a Spring Kafka that renamed them is refused the same
 * way, never misread.
 */
final class SpringErrorHandlerPolicy {

    private static final int MAX_RETRIES = 1000;

    private SpringErrorHandlerPolicy() {}

    static ErrorPolicy from(CommonErrorHandler handler, String beanName) {
        String what = "bean '" + beanName + "' (" + handler.getClass().getName() + ")";
        if (handler.getClass() != DefaultErrorHandler.class) {
            throw refuse(what, "only a DefaultErrorHandler is mapped onto the error policy");
        }
        Object tracker = field(handler, "failureTracker", what);
        if (!(field(tracker, "retryListeners", what) instanceof List<?> listeners) || !listeners.isEmpty()) {
            throw refuse(what, "retry listeners are not supported");
        }
        Object trackerFunction =
                field(tracker, "backOffFunction", what); // Spring's own: classification, then the user's
        if (trackerFunction != null && trackerFunction != field(handler, "noRetriesForClassified", what)
                || !isOwnLambda(field(handler, "userBackOffFunction", what), "FailedRecordProcessor")) {
            throw refuse(what, "a back-off function is not supported; give the handler one BackOff");
        }
        Recovery recovery = recovery(field(tracker, "recoverer", what), what);
        BackOff backOff = (BackOff) field(tracker, "backOff", what);
        ErrorAction retry = retry(backOff, what).then(recovery);
        Object matcher = invoke(handler, "getExceptionMatcher", what);
        @SuppressWarnings("unchecked")
        Map<Class<? extends Throwable>, Boolean> entries =
                (Map<Class<? extends Throwable>, Boolean>) invoke(matcher, "getEntries", what);
        boolean retryByDefault = (Boolean) field(matcher, "defaultMatch", what);
        ErrorAction noRetry = ErrorAction.retry(1, Backoff.none()).then(recovery);
        ErrorPolicy.Builder p = ErrorPolicy.builder()
                .otherwise(retryByDefault ? retry : noRetry)
                .deserializationFailure(recovery);
        entries.forEach((type, retryable) -> p.on(type, retryable ? retry : noRetry));
        return p.build();
    }

    /** Spring's execution of the back-off: its intervals up to STOP, as a retry action. */
    private static ErrorAction.Retry retry(BackOff backOff, String what) {
        BackOffExecution execution = backOff.start();
        List<Long> intervals = new ArrayList<>();
        for (long next = execution.nextBackOff(); next != BackOffExecution.STOP; next = execution.nextBackOff()) {
            if (intervals.size() == MAX_RETRIES) {
                throw refuse(
                        what,
                        "its BackOff retries without end (or more than " + MAX_RETRIES + " times); give "
                                + "it a limit (FixedBackOff(interval, maxAttempts), ExponentialBackOff.setMaxAttempts / "
                                + "setMaxElapsedTime)");
            }
            intervals.add(next);
        }
        int attempts = intervals.size() + 1;
        if (intervals.isEmpty()) {
            return ErrorAction.retry(1, Backoff.none());
        }
        if (backOff instanceof FixedBackOff || intervals.stream().distinct().count() == 1) {
            return ErrorAction.retry(attempts, Backoff.fixed(Duration.ofMillis(intervals.get(0))));
        }
        if (backOff instanceof ExponentialBackOff e) {
            return ErrorAction.retry(
                    attempts,
                    Backoff.exponential(
                            Duration.ofMillis(intervals.get(0)),
                            e.getMultiplier(),
                            Duration.ofMillis(e.getMaxInterval())));
        }
        throw refuse(what, "its BackOff " + backOff.getClass().getName() + " is neither fixed nor exponential");
    }

    private static Recovery recovery(Object recoverer, String what) {
        if (recoverer instanceof DeadLetterPublishingRecoverer dlpr) {
            if (dlpr.getClass() != DeadLetterPublishingRecoverer.class) {
                throw refuse(what, "a DeadLetterPublishingRecoverer subclass is not supported");
            }
            Object resolver = field(dlpr, "destinationResolver", what);
            Object standard = staticField(DeadLetterPublishingRecoverer.class, "DEFAULT_DESTINATION_RESOLVER", what);
            if (resolver != standard) {
                throw refuse(
                        what,
                        "its recoverer has a destination resolver of its own: name the dead-letter topic "
                                + "with @GroupKeeperListener(deadLetterTopic) or groupkeeper.listener.dead-letter.*, or give "
                                + "an ErrorPolicy bean");
            }
            return Recovery.DEAD_LETTER;
        }
        if (isOwnLambda(recoverer, "FailedRecordTracker") && !capturesARecoverer(recoverer)) {
            return Recovery.SKIP; // no recoverer: Spring logs the record and moves on
        }
        throw refuse(what, "only a DeadLetterPublishingRecoverer (default destination) or no recoverer is mapped");
    }

    private static boolean isOwnLambda(Object o, String springClass) {
        return o != null
                && o.getClass().getName().startsWith("org.springframework.kafka.listener." + springClass + "$$Lambda");
    }

    /** Whether Spring's wrapper lambda holds an application recoverer (a BiConsumer) rather than its logger. */
    private static boolean capturesARecoverer(Object lambda) {
        for (Field f : lambda.getClass().getDeclaredFields()) {
            try {
                f.setAccessible(true);
                if (f.get(lambda) instanceof BiConsumer<?, ?>) {
                    return true;
                }
            } catch (RuntimeException | IllegalAccessException e) {
                return true; // cannot tell: not the plain logging default
            }
        }
        return false;
    }

    private static Object field(Object target, String name, String what) {
        Field f = ReflectionUtils.findField(target.getClass(), name);
        if (f == null) {
            throw refuse(what, "this Spring Kafka version's handler cannot be read (no field " + name + ")");
        }
        ReflectionUtils.makeAccessible(f);
        return ReflectionUtils.getField(f, target);
    }

    private static Object staticField(Class<?> type, String name, String what) {
        Field f = ReflectionUtils.findField(type, name);
        if (f == null) {
            throw refuse(what, "this Spring Kafka version's recoverer cannot be read (no field " + name + ")");
        }
        ReflectionUtils.makeAccessible(f);
        return ReflectionUtils.getField(f, null);
    }

    private static Object invoke(Object target, String name, String what) {
        Method m = ReflectionUtils.findMethod(target.getClass(), name);
        if (m == null) {
            throw refuse(what, "this Spring Kafka version's handler cannot be read (no method " + name + ")");
        }
        ReflectionUtils.makeAccessible(m);
        return ReflectionUtils.invokeMethod(m, target);
    }

    private static IllegalStateException refuse(String what, String why) {
        return new IllegalStateException(what + " cannot be applied to @GroupKeeperListener methods: " + why
                + ". Use groupkeeper.listener.error.* or an ErrorPolicy bean (or list the bean in "
                + "groupkeeper.spring-kafka-only if it serves only the application's @KafkaListeners)");
    }
}
