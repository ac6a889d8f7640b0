package io.groupkeeper.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.DltHandler;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.RetryableTopic;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.adapter.RecordFilterStrategy;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.util.backoff.FixedBackOff;

/**
 * Issue 45 item 1: what a Spring Kafka service configures that {@code @GroupKeeperListener} methods do not apply fails
 * the context start, naming it and what to use instead — never silently ignored. Boot's Kafka auto-configuration is on,
 * as in an application: its own beans (the default container factory, the template) are not refused.
 */
@ExtendWith(OutputCaptureExtension.class)
class SpringKafkaRefusalsIT {

    static class Plain {
        @GroupKeeperListener(group = "refusals", topics = "orders")
        void onOrder(String order) {}
    }

    @Configuration(proxyBeanMethods = false)
    static class ErrorHandlerApp {
        @Bean
        Plain plain() {
            return new Plain();
        }

        @Bean // Spring Kafka's sample-01
        DefaultErrorHandler errorHandler(KafkaTemplate<Object, Object> template) {
            return new DefaultErrorHandler(new DeadLetterPublishingRecoverer(template), new FixedBackOff(100, 1));
        }

        @Bean
        RecordFilterStrategy<Object, Object> onlyOrders() {
            return r -> !String.valueOf(r.value()).startsWith("order");
        }

        @Bean
        org.springframework.kafka.core.DefaultKafkaConsumerFactory<Object, Object> myConsumerFactory() {
            return new org.springframework.kafka.core.DefaultKafkaConsumerFactory<>(java.util.Map.of());
        }

        @Bean
        java.util.function.Function<org.springframework.kafka.listener.MessageListenerContainer, String> threadNames() {
            return c -> "my-" + c.getListenerId();
        }

        @Bean
        ConcurrentKafkaListenerContainerFactory<Object, Object> myFactory(ConsumerFactory<Object, Object> cf) {
            ConcurrentKafkaListenerContainerFactory<Object, Object> f = new ConcurrentKafkaListenerContainerFactory<>();
            f.setConsumerFactory(cf);
            return f;
        }
    }

    @RetryableTopic(attempts = "3") // on the class: Spring Kafka reads it for a class-level @KafkaListener only
    static class Retryable {
        @GroupKeeperListener(group = "refusals", topics = "orders")
        void onOrder(String order) {}
    }

    static class RetryableFactory {
        @RetryableTopic(attempts = "3", listenerContainerFactory = "kafkaListenerContainerFactory")
        @GroupKeeperListener(group = "refusals", topics = "orders")
        void onOrder(String order) {}
    }

    @GroupKeeperListener(group = "refusals", topics = "orders")
    static class RetryableHandler { // a class-level listener's @KafkaHandler
        @RetryableTopic(attempts = "3")
        @org.springframework.kafka.annotation.KafkaHandler(isDefault = true)
        void onOrder(String order) {}
    }

    static class RetryableWithPolicy {
        @RetryableTopic(attempts = "3")
        @GroupKeeperListener(group = "refusals", topics = "orders", deadLetterTopic = "orders-dead")
        void onOrder(String order) {}
    }

    static class RetryableBatch { // (on a method: honoured, DifferentialIT and RetryTopicIT)
        @RetryableTopic(attempts = "3")
        @GroupKeeperListener(group = "refusals", topics = "orders")
        void onOrders(java.util.List<String> orders) {}
    }

    static class DltHandlerOnly {
        @GroupKeeperListener(group = "refusals", topics = "orders")
        void onOrder(String order) {}

        @DltHandler
        void dlt(String order) {}
    }

    @SendTo("replies")
    static class ClassReplies {
        @GroupKeeperListener(group = "refusals", topics = "orders")
        String onOrder(String order) {
            return order.toUpperCase();
        }
    }

    static class BatchReplies {
        @GroupKeeperListener(group = "refusals", topics = "orders")
        @SendTo("replies")
        List<String> onOrders(List<String> orders) {
            return orders;
        }
    }

    record Foo(String bar) {}

    static class Converted {
        @GroupKeeperListener(group = "refusals", topics = "orders")
        void onOrder(Foo foo) {}
    }

    static class Validated {
        @GroupKeeperListener(group = "refusals", topics = "orders")
        void onOrders(@org.springframework.validation.annotation.Validated List<Foo> foos) {}
    }

    static class DeliveryAttempt {
        @GroupKeeperListener(group = "refusals", topics = "orders")
        void onOrders(List<String> orders, @Header(KafkaHeaders.DELIVERY_ATTEMPT) int attempt) {}
    }

    static class RawData {
        @GroupKeeperListener(group = "refusals", topics = "orders")
        void onOrder(String order, @Header(KafkaHeaders.NATIVE_HEADERS) Object headers) {}
    }

    static class Both {
        @KafkaListener(id = "both", topics = "orders")
        @GroupKeeperListener(group = "refusals", topics = "orders")
        void onOrder(String order) {}
    }

    @KafkaListener(id = "classLevel", topics = "orders")
    static class ClassLevel {
        @GroupKeeperListener(group = "refusals", topics = "orders")
        void onOrder(String order) {}
    }

    @GroupKeeperListener(group = "refusals", topics = "orders")
    static class ClassLevelWithoutHandlers {
        void onOrder(String order) {}
    }

    @GroupKeeperListener(group = "refusals", topics = "orders")
    static class TwoDefaults {
        @org.springframework.kafka.annotation.KafkaHandler(isDefault = true)
        void one(String order) {}

        @org.springframework.kafka.annotation.KafkaHandler(isDefault = true)
        void two(Object order) {}
    }

    @GroupKeeperListener(group = "refusals", topics = "orders")
    static class BatchHandler {
        @org.springframework.kafka.annotation.KafkaHandler
        void many(java.util.List<String> orders) {}
    }

    static class HandlerWithoutClassLevel {
        @GroupKeeperListener(group = "refusals", topics = "orders")
        void onOrder(String order) {}

        @org.springframework.kafka.annotation.KafkaHandler
        void other(Integer n) {}
    }

    static class TopicsAndPattern {
        @GroupKeeperListener(group = "refusals", topics = "orders", topicPattern = "orders-.*")
        void onOrder(String order) {}
    }

    static class BadPattern {
        @GroupKeeperListener(group = "refusals", topicPattern = "orders-(")
        void onOrder(String order) {}
    }

    static class KafkaType {
        @GroupKeeperListener(group = "refusals", topics = "orders")
        void onOrder(org.springframework.kafka.support.Acknowledgment ack, ConsumerRecord<String, String> r) {}
    }

    static class SeekAware implements org.springframework.kafka.listener.ConsumerSeekAware {
        @GroupKeeperListener(group = "refusals", topics = "orders")
        void onOrder(String order) {}
    }

    final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class, GroupKeeperAutoConfiguration.class))
            .withPropertyValues(
                    "groupkeeper.zookeeper.connect=" + SharedServers.get().zkConnectString(),
                    "spring.kafka.bootstrap-servers=" + SharedServers.get().bootstrapServers(),
                    "groupkeeper.listener.auto-startup=false");

    private static org.assertj.core.api.AbstractThrowableAssert<?, ? extends Throwable> failure(
            org.springframework.boot.test.context.assertj.AssertableApplicationContext ctx) {
        return assertThat(ctx).hasFailed().getFailure();
    }

    @Test
    void anErrorHandlerARecovererAFilterAndAContainerFactoryOfTheApplicationAreEachNamed() {
        runner.withUserConfiguration(ErrorHandlerApp.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining("bean 'myFactory'")
                        .hasStackTraceContaining("bean 'myConsumerFactory'")
                        .hasStackTraceContaining("move the factory's settings there")
                        .hasStackTraceContaining("bean 'threadNames' (a thread-name supplier")
                        .hasStackTraceContaining("groupkeeper.spring-kafka-only")
                        .satisfies(t -> assertThat(stackTrace(t))
                                .as("Boot's own factory is not the application's; the "
                                        + "filter is honoured on a String listener")
                                .doesNotContain("bean 'kafkaListenerContainerFactory'", "onlyOrders")));
    }

    @Test
    void beansListedAsSpringKafkaOnlyStartAndAreLogged(CapturedOutput output) {
        runner.withUserConfiguration(ErrorHandlerApp.class)
                .withPropertyValues("groupkeeper.spring-kafka-only=errorHandler,onlyOrders,myFactory,myConsumerFactory,"
                        + "threadNames")
                .run(ctx -> assertThat(ctx).hasNotFailed());
        assertThat(output.getOut())
                .contains("[myFactory, myConsumerFactory, threadNames] " + "configure(s) only Spring Kafka's");
    }

    @Test
    void retryableTopicOnTheClassOrABatchListenerOrWithAFactoryOrADeadLetterTopicIsRefused() {
        runner.withBean(Retryable.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining(Retryable.class.getName()
                                + ".onOrder(java.lang.String): @RetryableTopic on " + "the class")
                        .hasStackTraceContaining("put it on a @GroupKeeperListener method"));
        runner.withBean(RetryableBatch.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining(
                                "onOrders(java.util.List<java.lang.String>): @RetryableTopic on a batch listener is not "
                                        + "supported"));
        runner.withBean(RetryableFactory.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining(
                                "@RetryableTopic(listenerContainerFactory) configures Spring Kafka's " + "containers"));
        runner.withBean(RetryableHandler.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining(
                                "@RetryableTopic on the class or on a class-level listener's @KafkaHandler "
                                        + "method is not supported"));
        runner.withBean(RetryableWithPolicy.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining("errorPolicy and deadLetterTopic do not apply beside retry topics"));
    }

    @Test
    void aDltHandlerIsRefused() {
        runner.withBean(DltHandlerOnly.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining("its class has a @DltHandler method (dlt)")
                        .hasStackTraceContaining("topics = \"<topic>-dlt\""));
    }

    /** @SendTo on a record listener method is honoured (SendToIT); on the class or a batch listener refused. */
    @Test
    void sendToOnTheClassOrABatchListenerIsRefused() {
        runner.withBean(ClassReplies.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining(ClassReplies.class.getName()
                                + ".onOrder(java.lang.String): @SendTo on the " + "class"));
        runner.withBean(BatchReplies.class)
                .run(ctx -> failure(ctx).hasStackTraceContaining("@SendTo on a batch listener is not supported yet"));
    }

    @Test
    void validatedOnABatchIsRefused() { // on a record payload it is honoured (SpringErrorHandlerIT)
        runner.withBean(Validated.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining(Validated.class.getName() + ".onOrders(")
                        .hasStackTraceContaining(
                                "@Valid / @Validated is supported on a record listener's payload parameter"));
    }

    /** DELIVERY_ATTEMPT is honoured on record listeners (SpringErrorHandlerIT); batch and synthetic headers not. */
    @Test
    void theDeliveryAttemptOfABatchAndSyntheticHeadersAreRefused() {
        runner.withBean(DeliveryAttempt.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining("@Header(\"kafka_deliveryAttempt\") is for record listeners"));
        runner.withBean(RawData.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining(
                                "@Header(\"kafka_nativeHeaders\") is not supported: take ConsumerRecord"));
    }

    @Test
    void kafkaListenerBesideGroupKeeperListenerIsRefused() {
        runner.withBean(Both.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining(Both.class.getName() + ".onOrder(java.lang.String) is also annotated "
                                + "@KafkaListener"));
        runner.withBean(ClassLevel.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining(
                                "is annotated @KafkaListener (class-level listener with @KafkaHandler"));
    }

    /** A class-level listener (KafkaHandlerIT) needs its @KafkaHandler methods, one default at most, no batches. */
    @Test
    void classLevelListenersOfAnotherShapeAreRefused() {
        runner.withBean(ClassLevelWithoutHandlers.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining("@GroupKeeperListener class "
                                + ClassLevelWithoutHandlers.class.getName() + " has no @KafkaHandler method"));
        runner.withBean(TwoDefaults.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining("only one @KafkaHandler may be isDefault = true; found one and two"));
        runner.withBean(BatchHandler.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining(
                                ".many(java.util.List<java.lang.String>) must take a payload or a " + "Message<T>"));
        runner.withBean(HandlerWithoutClassLevel.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining(
                                "its class has a @KafkaHandler method (other), which is not called here: "
                                        + "annotate the class @GroupKeeperListener"));
    }

    /** topicPattern is honoured (TopicPatternIT); beside topics, or not a regex, it is refused. */
    @Test
    void aTopicPatternBesideTopicsOrNotARegexIsRefused() {
        runner.withBean(TopicsAndPattern.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining(TopicsAndPattern.class.getName()
                                + ".onOrder(java.lang.String): topics and " + "topicPattern are both given"));
        runner.withBean(BadPattern.class)
                .run(ctx ->
                        failure(ctx).hasStackTraceContaining("topicPattern 'orders-(' is not a regular expression"));
    }

    /** Spring's filter sees the deserializer's values; a converted payload listener would hand it others. */
    @Test
    void aRecordFilterOnAListenerOfConvertedPayloadsIsRefused() {
        runner.withBean(Converted.class)
                .withBean("onlyOrders", RecordFilterStrategy.class, () ->
                        (RecordFilterStrategy<Object, Object>) r -> false)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining(Converted.class.getName() + ".onOrder(")
                        .hasStackTraceContaining(
                                "the RecordFilterStrategy bean would see this listener's converted " + "payloads"));
    }

    /** What a DefaultErrorHandler says that cannot be mapped onto the error policy fails the start, named. */
    @Test
    void anErrorHandlerThatCannotBeMappedIsRefused() {
        runner.withBean(Plain.class)
                .withBean(
                        "customDlt",
                        DefaultErrorHandler.class,
                        () -> new DefaultErrorHandler(
                                new DeadLetterPublishingRecoverer(
                                        new KafkaTemplate<>(
                                                new org.springframework.kafka.core.DefaultKafkaProducerFactory<>(
                                                        java.util.Map.of())),
                                        (r, e) -> new org.apache.kafka.common.TopicPartition("failures", 0)),
                                new FixedBackOff(100, 1)))
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining("bean 'customDlt' (" + DefaultErrorHandler.class.getName()
                                + ") cannot be applied to @GroupKeeperListener methods: its recoverer has a destination "
                                + "resolver of its own"));
        runner.withBean(Plain.class)
                .withBean(
                        "forever",
                        DefaultErrorHandler.class,
                        () -> new DefaultErrorHandler(new FixedBackOff(10, FixedBackOff.UNLIMITED_ATTEMPTS)))
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining("bean 'forever'")
                        .hasStackTraceContaining("its BackOff retries without end"));
        runner.withBean(Plain.class)
                .withBean("handler", DefaultErrorHandler.class, () -> new DefaultErrorHandler(new FixedBackOff(10, 1)))
                .withPropertyValues("groupkeeper.listener.error.attempts=5")
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining("both the error handler bean 'handler' and "
                                + "groupkeeper.listener(s).error.* are set"));
    }

    @Test
    void aListenerBeanImplementingConsumerSeekAwareIsRefused() {
        runner.withBean(SeekAware.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining("its class implements Spring Kafka's ConsumerSeekAware")
                        .hasStackTraceContaining("GroupKeeperSeekAware"));
    }

    @Test
    void anAcknowledgmentWithoutAManualAckModeIsRefused() {
        runner.withBean(KafkaType.class)
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining(
                                "an Acknowledgment parameter needs spring.kafka.listener.ack-mode=MANUAL or "
                                        + "MANUAL_IMMEDIATE")
                        .hasStackTraceContaining("No Acknowledgment available as an argument"));
    }

    @Test
    void aManualAckModeWithABatchListenerOrParallelismIsRefused() {
        runner.withBean(BatchOrders.class)
                .withPropertyValues("spring.kafka.listener.ack-mode=manual_immediate")
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining("spring.kafka.listener.ack-mode=MANUAL_IMMEDIATE is "
                                + "honoured for record listeners only, and this one is a batch listener"));
        runner.withBean(Plain.class)
                .withPropertyValues("spring.kafka.listener.ack-mode=manual", "groupkeeper.listener.parallelism=4")
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining("spring.kafka.listener.ack-mode=MANUAL is honoured "
                                + "for record listeners with ordering partition and parallelism 1 only")
                        .hasStackTraceContaining("parallelism 4"));
    }

    static class BatchOrders {
        @GroupKeeperListener(group = "refusals", topics = "orders")
        void onOrders(java.util.List<String> orders) {}
    }

    @Test
    void listenerPropertiesTheApplicationSetAreNamed() {
        runner.withBean(Plain.class)
                .withPropertyValues(
                        "spring.kafka.listener.ack-mode=count",
                        "spring.kafka.listener.poll-timeout=3s",
                        "spring.kafka.consumer.enable-auto-commit=true",
                        "spring.kafka.listener.immediate-stop=true",
                        "spring.kafka.listener.observation-enabled=false")
                .run(ctx -> failure(ctx)
                        .hasStackTraceContaining(
                                "spring.kafka.listener.ack-mode=count: offsets are committed by the " + "container")
                        .hasStackTraceContaining("spring.kafka.listener.poll-timeout=3s")
                        .hasStackTraceContaining(
                                "spring.kafka.listener.immediate-stop=true: groupkeeper.listener" + ".stop-deadline")
                        .hasStackTraceContaining("spring.kafka.consumer.enable-auto-commit=true")
                        .hasStackTraceContaining("spring.kafka.listener.observation-enabled=false")
                        .satisfies(t -> assertThat(stackTrace(t))
                                .as("not set: Boot's defaults do not count")
                                .doesNotContain("idle-between-polls", "no-poll-threshold", "monitor-interval")));
    }

    /** Sample-03: transactions configured; honoured, a KafkaTemplate joins the listener's (ListenerTemplateTransactionIT). */
    @Test
    void aTransactionIdPrefixIsNotRefused() {
        runner.withBean(Plain.class)
                .withPropertyValues("spring.kafka.producer.transaction-id-prefix=tx-")
                .run(ctx -> assertThat(ctx).hasNotFailed());
    }

    @Test
    void aPlainApplicationStartsWithoutAWordAboutSpringKafkasContainerSettings(CapturedOutput output) {
        runner.withBean(Plain.class).run(ctx -> assertThat(ctx).hasNotFailed());
        assertThat(output.getOut()).doesNotContain("poll-timeout", "spring.kafka.listener");
    }

    private static String stackTrace(Throwable t) {
        java.io.StringWriter w = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(w));
        return w.toString();
    }
}
