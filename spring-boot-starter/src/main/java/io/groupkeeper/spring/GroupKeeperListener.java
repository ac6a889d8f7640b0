package io.groupkeeper.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as a listener run by a groupkeeper {@link io.groupkeeper.kafka.container.ListenerContainer}.
 * Its parameters are resolved as Spring for Apache Kafka resolves a {@code @KafkaListener}'s, so a migrated method
 * keeps its signature: one data parameter — a {@code ConsumerRecord<K, V>}, the payload (unannotated or
 * {@code @Payload}; a {@code String}, {@code byte[]} or any Jackson-mapped class or record, converted from the
 * deserialized text or bytes — a value that does not convert is dead-lettered raw, as a deserialization failure),
 * Spring Messaging's {@code Message<T>}, or a {@code List} of records or payloads (a batch: the records of one
 * partition from one fetch) — and any number of {@code @Header} parameters (Spring Kafka's {@code KafkaHeaders} names
 * for topic, partition, offset, key, timestamp and group, or a record header by name; in a batch a {@code List} header
 * has one value per record) and {@code @Headers Map<String, Object>}. Anything else fails the context start naming
 * the method and the parameter. Attributes accept {@code ${...}} placeholders and {@code #{...}} expressions.
 *
 * <pre>{@code
 * @GroupKeeperListener(group = "billing", topics = "orders", concurrency = "2")
 * void bill(Order order, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition, @Header(KafkaHeaders.OFFSET) long offset) { ... }
 * }</pre>
 *
 * <p>On a class (as Spring Kafka's class-level {@code @KafkaListener}), the listener is the class's methods annotated
 * with Spring Kafka's own {@code @KafkaHandler}: each record goes to the method whose payload parameter type takes the
 * value as the configured value deserializer produced it, else to the one with {@code isDefault = true}; a value no
 * method takes fails ({@code KafkaException: No method found for <class>}) and is handled by the error policy. Its
 * default id is the bean name.
 *
 * <p>Settings not given here come from {@code groupkeeper.listeners.<id>.*}, then {@code groupkeeper.listener.*}.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface GroupKeeperListener {

    /**
     * The listener's id (for {@code groupkeeper.listeners.<id>.*}, health and {@link GroupKeeperContainers}); default
     * {@code <bean name>.<method name>}, which stays the same when other listeners are added or moved (in properties
     * an id with dots is written in brackets: {@code groupkeeper.listeners[orders.onOrder].concurrency}).
     */
    String id() default "";

    /**
     * The consumer group; default the {@link #id()} when one is given, else {@code spring.kafka.consumer.group-id}
     * (as a {@code @KafkaListener}'s {@code groupId}, with its default {@code idIsGroup = true}).
     */
    String group() default "";

    /**
     * Topics to consume; at least one, unless {@link #topicPattern()} is given. Each entry may hold several, comma-separated, and may be a {@code ${...}}
     * placeholder or a {@code #{...}} expression giving text, a {@code String[]} or a collection.
     */
    String[] topics() default {};

    /**
     * Instead of {@link #topics()}: a regular expression; the listener consumes every topic whose whole name matches
     * it (internal topics and the {@code <topic>-dlt} of a matching topic excluded), as a {@code @KafkaListener}'s
     * {@code topicPattern}. Evaluated at start and again every {@code metadata.max.age.ms} of the consumer settings
     * (default 5 minutes): when the matching set changed, the listener's container is stopped gracefully and a new one
     * started on the new topics. A pattern matching no topic at start fails the start. Accepts {@code ${...}} and
     * {@code #{...}}.
     */
    String topicPattern() default "";

    /** Consumers in this process (a number or a placeholder); default from properties (1). */
    String concurrency() default "";

    /** The name of an {@link io.groupkeeper.kafka.container.ErrorPolicy} bean; default from properties. */
    String errorPolicy() default "";

    /** One dead-letter topic for all of this listener's topics; default from properties ({@code <topic>-dlt}). */
    String deadLetterTopic() default "";

    /** Whether the container starts with the context; default from properties (true). */
    String autoStartup() default "";

    /**
     * Exactly once into Kafka ({@code "true"} or a placeholder): what the method sends with a
     * {@link io.groupkeeper.kafka.container.TransactionalSender} parameter commits in one Kafka transaction with the
     * input position (docs/exactly-once.md). Default from properties ({@code groupkeeper.listener.transactional},
     * false).
     */
    String transactional() default "";

    /**
     * Publish a {@link ListenerIdleEvent} when a consumer of this listener has fetched nothing for this long (a
     * duration: {@code "30s"}, {@code "PT1M"}, or a placeholder). Default from properties (none).
     */
    String idleEventInterval() default "";

    /**
     * In what order records are processed ({@code "partition"}, {@code "key"}, {@code "unordered"}, or a placeholder):
     * {@code partition} one record of a partition at a time, in offset order; {@code key} records of one key one at a
     * time in offset order, different keys in parallel; {@code unordered} every record on its own. Default from
     * properties ({@code groupkeeper.listener.ordering}, partition). See docs/parallel.md.
     */
    String ordering() default "";

    /**
     * Workers per consumer, shared by its partitions (a number or a placeholder); with {@code key} or
     * {@code unordered} ordering they process one partition's records in parallel. Default from properties
     * ({@code groupkeeper.listener.parallelism}, 1). Batch and transactional listeners take 1 only.
     */
    String parallelism() default "";
}
