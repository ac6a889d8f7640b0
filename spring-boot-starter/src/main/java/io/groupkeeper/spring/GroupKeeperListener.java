package io.groupkeeper.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as a listener run by a groupkeeper {@link io.groupkeeper.kafka.container.ListenerContainer}.
 * The method takes exactly one parameter: a {@code ConsumerRecord<K, V>}, the value alone, or a {@code List} of either
 * (a batch: the records of one partition from one fetch). Anything else fails the context start naming the method.
 * Attributes accept {@code ${...}} placeholders.
 *
 * <pre>{@code
 * @GroupKeeperListener(group = "billing", topics = "orders", concurrency = "2")
 * void bill(ConsumerRecord<String, String> order) { ... }
 * }</pre>
 *
 * <p>Settings not given here come from {@code groupkeeper.listeners.<id>.*}, then {@code groupkeeper.listener.*}.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface GroupKeeperListener {

    /** The listener's id (for {@code groupkeeper.listeners.<id>.*}, health and {@link GroupKeeperContainers}); default: the group. */
    String id() default "";

    /** The consumer group. Required. */
    String group();

    /** Topics to consume; at least one. */
    String[] topics();

    /** Consumers in this process (a number or a placeholder); default from properties (1). */
    String concurrency() default "";

    /** The name of an {@link io.groupkeeper.kafka.container.ErrorPolicy} bean; default from properties. */
    String errorPolicy() default "";

    /** One dead-letter topic for all of this listener's topics; default from properties ({@code <topic>-dlt}). */
    String deadLetterTopic() default "";

    /** Whether the container starts with the context; default from properties (true). */
    String autoStartup() default "";
}
