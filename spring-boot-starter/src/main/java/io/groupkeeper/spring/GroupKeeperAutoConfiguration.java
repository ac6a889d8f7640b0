package io.groupkeeper.spring;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.container.ContainerMetrics;
import io.groupkeeper.kafka.container.MicrometerContainerMetrics;
import io.groupkeeper.kafka.container.MicrometerKafkaClientMetrics;
import io.groupkeeper.metrics.GroupMetrics;
import io.groupkeeper.metrics.MicrometerGroupMetrics;
import io.groupkeeper.spring.internal.ContainerFactory;
import io.groupkeeper.spring.internal.ListenerAnnotationProcessor;
import io.groupkeeper.spring.internal.SpringKafkaSettings;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * groupkeeper for Spring Boot: a {@link ZooKeeperStore} and a started {@link GroupKeeper} from
 * {@code groupkeeper.zookeeper.*}, the {@code @GroupKeeperListener} containers (Kafka settings from
 * {@code spring.kafka.*}), Micrometer meters in the application's registry, and the {@code groupkeeper} health
 * contributor. Each bean backs off when the application defines its own.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
            "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration"
        })
@ConditionalOnClass(GroupKeeper.class)
@EnableConfigurationProperties(GroupKeeperProperties.class)
public class GroupKeeperAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public ZooKeeperStore groupKeeperStore(GroupKeeperProperties properties) {
        GroupKeeperProperties.ZooKeeper zk = properties.getZookeeper();
        if (zk.getConnect() == null || zk.getConnect().isBlank()) {
            throw new IllegalStateException("groupkeeper.zookeeper.connect is required: the ZooKeeper servers, "
                    + "e.g. groupkeeper.zookeeper.connect=zk1:2181,zk2:2181");
        }
        ZooKeeperStore.Builder b = ZooKeeperStore.builder()
                .connectString(zk.getConnect())
                .namespace(zk.getNamespace())
                .sessionTimeout(zk.getSessionTimeout())
                .connectionTimeout(zk.getConnectionTimeout());
        GroupKeeperProperties.Digest digest = zk.getDigest();
        if (digest.getUsername() != null || digest.getPassword() != null) {
            if (digest.getUsername() == null || digest.getPassword() == null) {
                throw new IllegalStateException("groupkeeper.zookeeper.digest: set both username and password");
            }
            b.digest(digest.getUsername() + ":" + digest.getPassword(), digest.isWorldReadable());
        }
        return b.build();
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public GroupKeeper groupKeeper(ZooKeeperStore store, ObjectProvider<GroupMetrics> metrics) {
        return GroupKeeper.builder()
                .store(store)
                .metrics(metrics.getIfAvailable(() -> GroupMetrics.NOOP))
                .build()
                .start();
    }

    // Package-private, as the next bean method: their signatures name internal types, which are no API.
    @Bean
    static ListenerAnnotationProcessor groupKeeperListenerAnnotationProcessor() {
        return new ListenerAnnotationProcessor();
    }

    @Bean
    @ConditionalOnMissingBean
    GroupKeeperContainers groupKeeperContainers(
            GroupKeeper keeper,
            GroupKeeperProperties properties,
            ObjectProvider<KafkaProperties> kafka,
            ObjectProvider<ContainerMetrics> metrics,
            ListenerAnnotationProcessor endpoints,
            BeanFactory beans,
            ObjectProvider<ObservationRegistry> observations,
            ApplicationEventPublisher events,
            ObjectProvider<KafkaClientMetricsBinding> clientMetrics,
            Environment environment) {
        KafkaClientMetricsBinding binding = clientMetrics.getIfAvailable();
        ContainerFactory factory = new ContainerFactory(
                keeper,
                properties,
                kafka.getIfAvailable(KafkaProperties::new),
                metrics.getIfAvailable(() -> ContainerMetrics.NONE),
                beans,
                observations.getIfAvailable(() -> ObservationRegistry.NOOP),
                events,
                binding == null ? null : binding::forListener);
        if (beans instanceof ListableBeanFactory listable) {
            factory.springKafka(new SpringKafkaSettings(listable, environment, properties.getSpringKafkaOnly()));
        }
        return new GroupKeeperContainers(factory, endpoints);
    }

    /** Meters in the application's registry (Micrometer and a registry present). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    @ConditionalOnBean(MeterRegistry.class)
    static class Metrics {
        @Bean
        @ConditionalOnMissingBean
        GroupMetrics groupKeeperGroupMetrics(MeterRegistry registry) {
            return new MicrometerGroupMetrics(registry);
        }

        @Bean
        @ConditionalOnMissingBean
        ContainerMetrics groupKeeperContainerMetrics(MeterRegistry registry) {
            return new MicrometerContainerMetrics(registry);
        }

        /** Every listener's Kafka clients (workers' consumers, producers) in the registry, tagged as Spring Kafka's. */
        @Bean
        @ConditionalOnMissingBean
        KafkaClientMetricsBinding groupKeeperKafkaClientMetrics(MeterRegistry registry) {
            return (listenerId, group) -> MicrometerKafkaClientMetrics.forContainer(registry, listenerId, group);
        }
    }

    /** The {@code groupkeeper} health contributor (Spring Boot's health module present, e.g. with Actuator). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class HealthConfiguration {
        @Bean
        @ConditionalOnMissingBean(name = "groupkeeperHealthIndicator")
        GroupKeeperHealthIndicator groupkeeperHealthIndicator(GroupKeeper keeper, GroupKeeperContainers containers) {
            return new GroupKeeperHealthIndicator(keeper, containers);
        }
    }
}
