package io.groupkeeper.examples.springswitch;

import io.groupkeeper.spring.GroupKeeperAutoConfiguration;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The billing service of {@code switch-from-spring}, a Spring Boot application run in a JVM of its own:
 * {@code ListenerService spring-kafka|groupkeeper --app.topic=T --app.group=G --app.ledger=FILE --spring.kafka...}.
 * {@code spring-kafka} runs {@link SpringKafkaBilling} on Spring for Apache Kafka alone (groupkeeper's
 * auto-configuration excluded); {@code groupkeeper} runs {@link GroupKeeperBilling} on the starter. Same properties
 * otherwise. It runs until it is sent SIGTERM (Boot's shutdown hook closes the context: the listeners stop gracefully).
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class ListenerService {

    @Bean(destroyMethod = "close")
    Ledger ledger(@Value("${app.ledger}") String file) {
        return new Ledger(Path.of(file));
    }

    public static void main(String[] args) {
        if (args.length == 0 || !(args[0].equals("spring-kafka") || args[0].equals("groupkeeper"))) {
            System.err.println("usage: ListenerService spring-kafka|groupkeeper --app.topic=T --app.group=G"
                    + " --app.ledger=FILE [--property=value ...]");
            System.exit(2);
        }
        boolean onSpringKafka = args[0].equals("spring-kafka");
        SpringApplication app = new SpringApplication(
                ListenerService.class, onSpringKafka ? SpringKafkaBilling.class : GroupKeeperBilling.class);
        app.setWebApplicationType(WebApplicationType.NONE);
        app.setBannerMode(Banner.Mode.OFF);
        Map<String, Object> defaults = new HashMap<>();
        if (onSpringKafka) {
            defaults.put("spring.autoconfigure.exclude", GroupKeeperAutoConfiguration.class.getName());
        }
        app.setDefaultProperties(defaults);
        app.run(Arrays.copyOfRange(args, 1, args.length));
    }
}
