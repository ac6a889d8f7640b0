package io.groupkeeper.examples;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.MicrometerContainerMetrics;
import io.groupkeeper.metrics.MicrometerGroupMetrics;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A plain Java service (no Spring): the group "billing" reads the topic "orders" on the listener container, with
 * Micrometer meters, SLF4J logging (any backend on the classpath: logback-classic here) and a graceful stop on SIGTERM
 * or Ctrl-C. Run it: {@code java -cp 'examples/target/groupkeeper-examples.jar:examples/target/lib/*'
 * io.groupkeeper.examples.PlainJavaService ZK BOOTSTRAP}.
 */
public final class PlainJavaService implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PlainJavaService.class);

    private final GroupKeeper keeper;
    private final ListenerContainer<String, String> container;

    public PlainJavaService(String zooKeeper, String bootstrap, MeterRegistry meters) {
        keeper = GroupKeeper.builder()
                .store(ZooKeeperStore.builder().connectString(zooKeeper).build())
                .metrics(new MicrometerGroupMetrics(meters))
                .build()
                .start();
        try {
            container = ListenerContainer.<String, String>builder(keeper)
                    .group("billing")
                    .topics("orders")
                    .kafkaProperty("bootstrap.servers", bootstrap)
                    .deserializers(new StringDeserializer(), new StringDeserializer())
                    .recordHandler(PlainJavaService::bill)
                    .errorPolicy(ErrorPolicy.builder()
                            .otherwise(ErrorAction.retry(3, Backoff.fixed(Duration.ofSeconds(1)))
                                    .thenStopPartition())
                            .build())
                    .metrics(new MicrometerContainerMetrics(meters))
                    .build()
                    .start();
        } catch (RuntimeException e) {
            keeper.close();
            throw e;
        }
    }

    private static void bill(ConsumerRecord<String, String> order) {
        LOG.info("billing {} from {}-{}@{}", order.value(), order.topic(), order.partition(), order.offset());
    }

    /** Graceful: the handler call in flight finishes, final offsets are committed, the partitions are released. */
    @Override
    public void close() {
        try {
            container.close();
        } finally {
            keeper.close();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        String zooKeeper = args.length > 0 ? args[0] : "127.0.0.1:2181";
        String bootstrap = args.length > 1 ? args[1] : "127.0.0.1:9092";
        MeterRegistry meters = new SimpleMeterRegistry(); // or a PrometheusMeterRegistry, to be scraped
        PlainJavaService service = new PlainJavaService(zooKeeper, bootstrap, meters);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> { // SIGTERM, Ctrl-C
                            service.close();
                            stopped.countDown();
                        },
                        "billing-shutdown"));
        LOG.info("billing runs; SIGTERM or Ctrl-C stops it");
        stopped.await();
    }
}
