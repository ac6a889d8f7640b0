package io.groupkeeper.spring.internal;

import io.groupkeeper.spring.GroupKeeperListener;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.kafka.annotation.DltHandler;
import org.springframework.kafka.annotation.KafkaHandler;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.KafkaListeners;
import org.springframework.kafka.annotation.RetryableTopic;
import org.springframework.kafka.listener.ConsumerSeekAware;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.util.ReflectionUtils;

/**
 * Spring for Apache Kafka's annotations beside a {@code @GroupKeeperListener} method, which this starter does not
 * apply: refused when the context starts, naming the method and what to use instead, never silently dropped.
 */
final class SpringKafkaAnnotations {

    private SpringKafkaAnnotations() {}

    /** Throws naming the first Spring Kafka annotation on {@code method} or its class that would be ignored. */
    static void refuse(Class<?> beanClass, Method method) {
        boolean classLevel = has(beanClass, GroupKeeperListener.class);
        String where = (classLevel
                        ? "@GroupKeeperListener class " + beanClass.getName() + ", method "
                        : "@GroupKeeperListener method ")
                + ListenerMethod.describe(method);
        if (has(method, KafkaListener.class) || has(method, KafkaListeners.class)) {
            throw new IllegalStateException(where + " is also annotated @KafkaListener: Spring Kafka would consume "
                    + "the same records in its own container. Remove @KafkaListener (its groupId is the group, its "
                    + "topics the topics of @GroupKeeperListener)");
        }
        if (has(beanClass, KafkaListener.class) || has(beanClass, KafkaListeners.class)) {
            throw new IllegalStateException(where + ": its class " + beanClass.getName() + " is annotated "
                    + "@KafkaListener (class-level listener with @KafkaHandler methods), which is not supported beside a "
                    + "@GroupKeeperListener method: replace the class's @KafkaListener with @GroupKeeperListener(group "
                    + "= ..., topics = ...) (its @KafkaHandler methods are then routed by payload type as in Spring "
                    + "Kafka)");
        }
        if (has(beanClass, RetryableTopic.class) || classLevel && has(method, RetryableTopic.class)) {
            throw new IllegalStateException(where + ": @RetryableTopic on the class or on a class-level listener's "
                    + "@KafkaHandler method is not supported: put it on a @GroupKeeperListener method");
        }
        boolean[] retryable = {false}; // a @DltHandler is used by the class's @RetryableTopic methods (Spring's rule)
        ReflectionUtils.doWithMethods(
                beanClass, m -> retryable[0] |= has(m, RetryableTopic.class) && has(m, GroupKeeperListener.class));
        if (has(beanClass, SendTo.class)) { // (on the method it is honoured: SendToReplies)
            throw new IllegalStateException(where + ": @SendTo on the class (for @KafkaHandler methods) is not "
                    + "supported: put it on the @GroupKeeperListener method");
        }
        if (ConsumerSeekAware.class.isAssignableFrom(beanClass)) {
            throw new IllegalStateException(where + ": its class implements Spring Kafka's ConsumerSeekAware, which is "
                    + "not called here: implement io.groupkeeper.spring.GroupKeeperSeekAware (onPartitionsAssigned("
                    + "listenerId, partitions, seeker) with seeker.seek / seekToTimestamp)");
        }
        Method[] dltHandler = {null};
        Method[] kafkaHandler = {null};
        ReflectionUtils.doWithMethods(beanClass, m -> {
            if (dltHandler[0] == null && has(m, DltHandler.class)) {
                dltHandler[0] = m;
            }
            if (kafkaHandler[0] == null && has(m, KafkaHandler.class)) {
                kafkaHandler[0] = m;
            }
        });
        if (dltHandler[0] != null && !retryable[0]) {
            throw new IllegalStateException(where + ": its class has a @DltHandler method (" + dltHandler[0].getName()
                    + "), which is called only for a @RetryableTopic method of its class: add @RetryableTopic to the "
                    + "@GroupKeeperListener method, or annotate it @GroupKeeperListener(group = ..., topics = "
                    + "\"<topic>-dlt\") instead (a listener of dead-letter topics only skips its own failures)");
        }
        if (kafkaHandler[0] != null && !classLevel) { // (with ours on the class they are its handlers)
            throw new IllegalStateException(
                    where + ": its class has a @KafkaHandler method (" + kafkaHandler[0].getName()
                            + "), which is not called here: annotate the class @GroupKeeperListener (a class-level listener routing "
                            + "by payload type to its @KafkaHandler methods), or use @GroupKeeperListener methods only");
        }
    }

    private static boolean has(AnnotatedElement e, Class<? extends Annotation> a) {
        return AnnotatedElementUtils.hasAnnotation(e, a);
    }
}
