package io.groupkeeper.benchmarks.throughput;

import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.EnableKafka;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.MessageListener;

/**
 * Spring for Apache Kafka's two record listeners, both on one {@code ConcurrentMessageListenerContainer} (concurrency
 * 1, Kafka's group management, a fresh group, earliest) with the run's common consumer settings and a time-based
 * commit ({@code AckMode.TIME}, 1 s, as the others commit):
 * <ul>
 *   <li>{@code spring-record}: a {@code MessageListener<String, String>} taking the {@code ConsumerRecord} — the
 *   container's own signature and Spring's cheapest path (no messaging adapter);</li>
 *   <li>{@code spring-annotated}: {@code @KafkaListener void onRecord(String value)} — the payload converted through
 *   Spring's messaging adapter, what most Spring services write.</li>
 * </ul>
 */
final class SpringContainers {

    private SpringContainers() {}

    private static Map<String, Object> props(Run run) {
        Map<String, Object> props = run.consumerProps();
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return props;
    }

    private static void commitEverySecond(ContainerProperties cp) {
        cp.setAckMode(ContainerProperties.AckMode.TIME);
        cp.setAckTime(1000);
    }

    /** {@code spring-record}: a {@code MessageListener} on a plain container. */
    static Run.Result record(Run run) throws InterruptedException {
        ContainerProperties cp = new ContainerProperties(Run.IN);
        cp.setGroupId(run.group());
        commitEverySecond(cp);
        Sink sink = run.sink();
        cp.setMessageListener(
                (MessageListener<String, String>) (ConsumerRecord<String, String> r) -> sink.accept(r.value()));
        ConcurrentMessageListenerContainer<String, String> c = new ConcurrentMessageListenerContainer<>(
                new DefaultKafkaConsumerFactory<>(props(run), new StringDeserializer(), new StringDeserializer()), cp);
        c.setConcurrency(1);
        c.start();
        try {
            return run.consumed();
        } finally {
            c.stop();
        }
    }

    /** {@code spring-annotated}: an {@code @KafkaListener} method in a plain Spring context. */
    static Run.Result annotated(Run run) throws InterruptedException {
        try (AnnotationConfigApplicationContext ctx = new AnnotationConfigApplicationContext()) {
            ctx.registerBean("benchRun", Run.class, () -> run);
            ctx.register(Config.class);
            ctx.refresh();
            return run.consumed();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableKafka
    static class Config {
        @Bean
        ConcurrentKafkaListenerContainerFactory<String, String> kafkaListenerContainerFactory(Run run) {
            ConcurrentKafkaListenerContainerFactory<String, String> f = new ConcurrentKafkaListenerContainerFactory<>();
            f.setConsumerFactory(
                    new DefaultKafkaConsumerFactory<>(props(run), new StringDeserializer(), new StringDeserializer()));
            f.setConcurrency(1);
            commitEverySecond(f.getContainerProperties());
            return f;
        }

        @Bean
        Listener listener(Run run) {
            return new Listener(run.sink());
        }
    }

    static class Listener {
        private final Sink sink;

        Listener(Sink sink) {
            this.sink = sink;
        }

        @KafkaListener(topics = Run.IN, groupId = "#{benchRun.group()}")
        public void onRecord(String value) {
            sink.accept(value);
        }
    }
}
