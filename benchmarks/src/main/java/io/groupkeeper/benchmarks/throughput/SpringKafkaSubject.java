package io.groupkeeper.benchmarks.throughput;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.EnableKafka;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;

/**
 * Spring for Apache Kafka's {@code @KafkaListener} (Kafka's own group management, a fresh group id, earliest), in a
 * plain Spring context: the record listener and container a service team migrates from.
 */
final class SpringKafkaSubject {

    /** The run's settings, read by the listener annotation through SpEL. */
    public record Settings(String bootstrap, String topic, String group, Sink sink) {
    }

    private SpringKafkaSubject() {
    }

    static void run(Settings settings) throws InterruptedException {
        try (AnnotationConfigApplicationContext ctx = new AnnotationConfigApplicationContext()) {
            ctx.registerBean("benchSettings", Settings.class, () -> settings);
            ctx.register(Config.class);
            ctx.refresh();
            settings.sink().done.await();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableKafka
    static class Config {
        @Bean
        ConcurrentKafkaListenerContainerFactory<String, String> kafkaListenerContainerFactory(Settings s) {
            Map<String, Object> props = new HashMap<>();
            props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, s.bootstrap());
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            ConcurrentKafkaListenerContainerFactory<String, String> f = new ConcurrentKafkaListenerContainerFactory<>();
            f.setConsumerFactory(new DefaultKafkaConsumerFactory<>(props, new StringDeserializer(),
                    new StringDeserializer()));
            f.setConcurrency(1);
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
