package io.groupkeeper.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.spring.app.TestApp;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ClassPathResource;

/** One clear error per bad input, at context start; and the configuration metadata IDEs complete from. */
@ExtendWith(OutputCaptureExtension.class)
class BadInputIT {

    static class TwoParameters {
        @GroupKeeperListener(group = "billing", topics = "orders")
        void bill(ConsumerRecord<String, String> record, int attempt) {}
    }

    @Configuration(proxyBeanMethods = false)
    static class BadListener {
        @Bean
        TwoParameters twoParameters() {
            return new TwoParameters();
        }
    }

    static class SenderWithoutTransactions {
        @GroupKeeperListener(group = "enrich", topics = "orders")
        void enrich(String order, io.groupkeeper.kafka.container.TransactionalSender<String, String> out) {}
    }

    @Configuration(proxyBeanMethods = false)
    static class SenderListener {
        @Bean
        SenderWithoutTransactions senderWithoutTransactions() {
            return new SenderWithoutTransactions();
        }
    }

    final ApplicationContextRunner runner =
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(GroupKeeperAutoConfiguration.class));

    @Test
    void aMissingConnectStringNamesTheProperty() {
        runner.run(ctx -> assertThat(ctx)
                .hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("groupkeeper.zookeeper.connect is required"));
    }

    @Test
    void aListenerMethodWithAnUnsupportedSignatureFailsTheStartNamingTheMethod() {
        runner.withUserConfiguration(BadListener.class)
                .withPropertyValues(
                        "groupkeeper.zookeeper.connect=" + SharedServers.get().zkConnectString())
                .run(ctx -> assertThat(ctx)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("@GroupKeeperListener method " + TwoParameters.class.getName()
                                + ".bill(org.apache.kafka.clients.consumer.ConsumerRecord<java.lang.String, "
                                + "java.lang.String>, int) has an unsupported signature: parameter 2 (int attempt): a "
                                + "second data parameter"));
    }

    @Test
    void aTransactionalSenderOnAListenerThatIsNotTransactionalFailsTheStartNamingTheMethod() {
        runner.withUserConfiguration(SenderListener.class)
                .withPropertyValues(
                        "groupkeeper.zookeeper.connect=" + SharedServers.get().zkConnectString(),
                        "spring.kafka.bootstrap-servers=" + SharedServers.get().bootstrapServers())
                .run(ctx -> assertThat(ctx)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining(SenderWithoutTransactions.class.getName() + ".enrich(")
                        .hasMessageContaining("a TransactionalSender parameter needs a transactional listener"));
    }

    /** Issue 36 defect 11: the two connection properties and a listener are enough; the default DLT is created. */
    @Test
    void theZeroConfigurationAppStartsAndCreatesTheDefaultDeadLetterTopic() throws Exception {
        String topic = SharedServers.topic(3);
        try (var ctx = new SpringApplicationBuilder(TestApp.class)
                        .web(WebApplicationType.NONE)
                        .properties(Map.of(
                                "groupkeeper.zookeeper.connect",
                                SharedServers.get().zkConnectString(),
                                "spring.kafka.bootstrap-servers",
                                SharedServers.get().bootstrapServers(),
                                "app.topic",
                                topic,
                                "app.group",
                                SharedServers.name("g")))
                        .run();
                Admin admin = Admin.create(
                        Map.of("bootstrap.servers", SharedServers.get().bootstrapServers()))) {
            assertThat(ctx.isRunning()).isTrue();
            assertThat(admin.describeTopics(List.of(topic + "-dlt"))
                            .allTopicNames()
                            .get(30, TimeUnit.SECONDS)
                            .get(topic + "-dlt")
                            .partitions())
                    .as("as many partitions as the source")
                    .hasSize(3);
        }
    }

    /**
     * A migrated service's spring.kafka.listener.* settings: concurrency and idle-event-interval apply (below
     * groupkeeper.listener.*); what configures Spring Kafka's own container fails the start (SpringKafkaRefusalsIT),
     * unless listed in groupkeeper.spring-kafka-only, then it is named at INFO.
     */
    @Test
    void springKafkaListenerSettingsApplyOrAreNamed(CapturedOutput output) {
        String topic = SharedServers.topic(2);
        try (var ctx = new SpringApplicationBuilder(TestApp.class)
                .web(WebApplicationType.NONE)
                .properties(Map.of(
                        "groupkeeper.zookeeper.connect",
                        SharedServers.get().zkConnectString(),
                        "spring.kafka.bootstrap-servers",
                        SharedServers.get().bootstrapServers(),
                        "spring.kafka.listener.concurrency",
                        "3",
                        "spring.kafka.listener.ack-mode",
                        "manual",
                        "groupkeeper.spring-kafka-only",
                        "spring.kafka.listener.ack-mode",
                        "spring.kafka.listener.idle-event-interval",
                        "30s",
                        "app.topic",
                        topic,
                        "app.group",
                        SharedServers.name("g")))
                .run()) {
            GroupKeeperContainers containers = ctx.getBean(GroupKeeperContainers.class);
            assertThat(containers.container("audit").workers())
                    .as("spring.kafka.listener.concurrency")
                    .hasSize(3);
            assertThat(containers.container("billing").workers())
                    .as("the annotation's own wins")
                    .hasSize(2);
        }
        assertThat(output.getOut())
                .contains("[spring.kafka.listener.ack-mode] configure(s) only Spring Kafka's own " + "containers");
        assertThat(output.getOut())
                .as("idle-event-interval applies (ListenerIdleEvent)")
                .doesNotContain("idle-event-interval");
    }

    @Test
    void aNamedDeadLetterTopicThatDoesNotExistFailsTheStartNamingIt() {
        String topic = SharedServers.topic(1);
        Throwable failure = null;
        try (var ctx = new SpringApplicationBuilder(TestApp.class)
                .web(WebApplicationType.NONE)
                .properties(Map.of(
                        "groupkeeper.zookeeper.connect",
                        SharedServers.get().zkConnectString(),
                        "spring.kafka.bootstrap-servers",
                        SharedServers.get().bootstrapServers(),
                        "groupkeeper.listener.dead-letter.topic",
                        topic + "-failures",
                        "app.topic",
                        topic,
                        "app.group",
                        SharedServers.name("g")))
                .run()) {
            assertThat(ctx.isRunning()).isFalse(); // not reached
        } catch (RuntimeException e) {
            failure = e;
        }
        assertThat(failure).isNotNull();
        assertThat(failure)
                .hasRootCauseInstanceOf(IllegalStateException.class)
                .hasStackTraceContaining("groupkeeper listener '")
                .hasStackTraceContaining("dead-letter topic(s) [" + topic + "-failures] do not exist")
                .hasStackTraceContaining("groupkeeper.listener.dead-letter.create-topics=true");
    }

    @Test
    void configurationMetadataDescribesTheProperties() throws Exception {
        String json = new String(
                new ClassPathResource("META-INF/spring-configuration-metadata.json")
                        .getInputStream()
                        .readAllBytes(),
                java.nio.charset.StandardCharsets.UTF_8);
        assertThat(json)
                .contains(
                        "\"groupkeeper.zookeeper.connect\"",
                        "\"groupkeeper.listener.error.attempts\"",
                        "\"groupkeeper.listener.dead-letter.create-topics\"",
                        "\"groupkeeper.zookeeper.digest.username\"",
                        "ZooKeeper servers");
    }
}
