package io.groupkeeper.benchmarks.throughput;

import io.groupkeeper.spring.GroupKeeperListener;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;

/**
 * {@code starter-annotated}: {@code spring-annotated}'s listener method ({@code void onRecord(String value)}) with its
 * {@code @KafkaListener} swapped for {@code @GroupKeeperListener}, in a Spring Boot context with groupkeeper's
 * starter as an application has it (Boot's auto-configuration, {@code spring.kafka.*} and
 * {@code groupkeeper.zookeeper.connect}; the starter builds its own {@code GroupKeeper}): one consumer, a fresh group,
 * earliest, the run's common consumer settings as {@code spring.kafka.consumer.properties.*}, positions committed
 * every second (the starter's default {@code groupkeeper.listener.commit-interval}).
 */
final class StarterContender {

    private StarterContender() {}

    static Run.Result annotated(Run run) throws InterruptedException {
        Map<String, Object> p = new HashMap<>();
        p.put("groupkeeper.zookeeper.connect", run.zkConnect());
        p.put("spring.kafka.bootstrap-servers", run.bootstrap());
        p.put("spring.kafka.consumer.auto-offset-reset", "earliest");
        run.consumer().forEach((k, v) -> p.put("spring.kafka.consumer.properties." + k, String.valueOf(v)));
        p.put("groupkeeper.listener.commit-interval", "1s");
        p.put("groupkeeper.listener.concurrency", "1");
        p.put("spring.main.banner-mode", "off");
        try (ConfigurableApplicationContext ctx = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .initializers(c -> ((GenericApplicationContext) c)
                        .registerBean(
                                "benchRun",
                                Run.class,
                                () -> run,
                                bd -> bd.setDestroyMethodName(""))) // the run is no resource of the context
                .properties(p)
                .run()) {
            return run.consumed();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Listener listener(Run benchRun) {
            return new Listener(benchRun.sink());
        }
    }

    static class Listener {
        private final Sink sink;

        Listener(Sink sink) {
            this.sink = sink;
        }

        @GroupKeeperListener(group = "#{benchRun.group()}", topics = Run.IN)
        public void onRecord(String value) {
            sink.accept(value);
        }
    }
}
