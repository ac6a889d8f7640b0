package io.groupkeeper.benchmarks.throughput;

import java.util.HashMap;
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
 * Spring for Apache Kafka's two record listeners for {@link ContainerThroughputMain}, both on one
 * {@code ConcurrentMessageListenerContainer} (concurrency 1, Kafka's group management, a fresh group, earliest) with
 * the run's common consumer settings and a time-based commit ({@code AckMode.TIME}, 1 s, as the others commit):
 * <ul>
 *   <li>{@code spring-record}: a {@code MessageListener<String, String>} taking the {@code ConsumerRecord} — the
 *   container's own signature and Spring's cheapest path (no messaging adapter);</li>
 *   <li>{@code spring-annotated}: {@code @KafkaListener void onRecord(String value)} — the payload converted through
 *   Spring's messaging adapter, what most Spring services write.</li>
 * </ul>
 */
final class SpringContainers {

    /** The run's settings, read by the annotation through SpEL. */
    public record Settings(String bootstrap, String topic, String group, Map<String, Object> consumer, Sink sink) {
    }

    private SpringContainers() {
    }

    private static Map<String, Object> props(Settings s) {
        Map<String, Object> props = new HashMap<>(s.consumer());
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, s.bootstrap());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return props;
    }

    private static void commitEverySecond(ContainerProperties cp) {
        cp.setAckMode(ContainerProperties.AckMode.TIME);
        cp.setAckTime(1000);
    }

    /** A {@code MessageListener} on a plain container. */
    static void record(Settings s) throws InterruptedException {
        ContainerProperties cp = new ContainerProperties(s.topic());
        cp.setGroupId(s.group());
        commitEverySecond(cp);
        Sink sink = s.sink();
        cp.setMessageListener((MessageListener<String, String>) (ConsumerRecord<String, String> r) -> sink.accept(r.value()));
        ConcurrentMessageListenerContainer<String, String> c = new ConcurrentMessageListenerContainer<>(
                new DefaultKafkaConsumerFactory<>(props(s), new StringDeserializer(), new StringDeserializer()), cp);
        c.setConcurrency(1);
        c.start();
        try {
            sink.done.await();
        } finally {
            c.stop();
        }
    }

    /** An {@code @KafkaListener} method in a plain Spring context. */
    static void annotated(Settings s) throws InterruptedException {
        try (AnnotationConfigApplicationContext ctx = new AnnotationConfigApplicationContext()) {
            ctx.registerBean("benchSettings", Settings.class, () -> s);
            ctx.register(Config.class);
            ctx.refresh();
            s.sink().done.await();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableKafka
    static class Config {
        @Bean
        ConcurrentKafkaListenerContainerFactory<String, String> kafkaListenerContainerFactory(Settings s) {
            ConcurrentKafkaListenerContainerFactory<String, String> f = new ConcurrentKafkaListenerContainerFactory<>();
            f.setConsumerFactory(new DefaultKafkaConsumerFactory<>(props(s), new StringDeserializer(),
                    new StringDeserializer()));
            f.setConcurrency(1);
            commitEverySecond(f.getContainerProperties());
            return f;
        }

        @Bean
        Listener listener(Settings s) {
            return new Listener(s.sink());
        }
    }

    static class Listener {
        private final Sink sink;

        Listener(Sink sink) {
            this.sink = sink;
        }

        @KafkaListener(topics = "#{benchSettings.topic()}", groupId = "#{benchSettings.group()}")
        public void onRecord(String value) {
            sink.accept(value);
        }
    }
}
