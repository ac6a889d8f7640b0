package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.internal.AdapterConfig;
import io.groupkeeper.kafka.internal.DefaultCoordinatedConsumer;
import io.groupkeeper.kafka.internal.KafkaClients;
import io.groupkeeper.kafka.internal.TransactionalConfig;
import io.groupkeeper.zkprotocol.internal.ZkPaths;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * A transactional claim that starts afresh (the partition's offset node was deleted) and whose first transaction
 * fails, against in-process ZooKeeper and Kafka.
 */
class TransactionalFreshStartIT extends KafkaTestSupport {

    /**
     * Issue 44 (simulator, transactional, seeds 3005823, 3007583, 3019130 and 3024351): a's first commit of the
     * partition, from the start position 0, leaves Kafka's offset 10 with metadata naming ZooKeeper's 0; the operator
     * deletes the offset node. b claims the partition: ZooKeeper's offset was removed, so it starts afresh at the start
     * position; the transaction that commits the start to Kafka fails (its {@code sendOffsetsToTransaction} times out),
     * and the start was stored in ZooKeeper alone: 0, a value Kafka's metadata names. Any later claim — b's, made
     * again after its next transaction failed, or the next owner's — then took ZooKeeper's 0 for a commit's ZooKeeper
     * write that did not land and let Kafka's 10 win: records 0..9 never had an output again after the deletion.
     * ZooKeeper now holds no offset until Kafka has the fresh start, and each claim starts afresh again.
     */
    @Test
    void aFreshStartAfterADeletionSurvivesAFailedFirstTransaction() throws Exception {
        String in = newTopic(1);
        String out = newTopic(1);
        String group = newName("g");
        produce(in, 1, 10);
        CoordinatedConsumer<String, String> a = consumer(newKeeper(), group, in)
                .startPosition(StartPosition.earliest())
                .commitInterval(Duration.ofMinutes(5))
                .transactional(new StringSerializer(), new StringSerializer())
                .build();
        toClose.add(a);
        a.start();
        TransactionalIT.consumeAndSend(a, out, 10);
        a.commitSync();
        TransactionalIT.awaitKafkaOffset(group, in, 0, 10);
        assertThat(storedOffset(group, in, 0)).hasValue(10);
        a.close();
        zk.curator().delete().forPath(ZkPaths.offset(group, io.groupkeeper.TopicPartition.of(in, 0)));

        AtomicInteger failures = new AtomicInteger(2);
        DefaultCoordinatedConsumer<String, String> b = txConsumer(newKeeper(), group, in, new OffsetsTimeOut(failures));
        toClose.add(b);
        b.start();
        assertThat(TransactionalIT.consumeAndSend(b, out, 10))
                .as("b starts afresh")
                .isEqualTo(0);
        assertThat(failures).as("the transaction storing the start failed").hasValue(1);
        assertThat(storedOffset(group, in, 0))
                .as("ZooKeeper's offset while Kafka does not have the fresh start")
                .isEmpty();
        b.commitSync(); // its transaction fails too; the partition is claimed again
        assertThat(failures).as("the commit's transaction failed").hasValue(0);

        assertThat(TransactionalIT.consumeAndSend(b, out, 10))
                .as("the records again")
                .isEqualTo(0);
        b.commitSync();
        TransactionalIT.awaitKafkaOffset(group, in, 0, 10);
        assertThat(TransactionalIT.readCommitted(out, 10))
                .as("a's outputs, and b's after the deletion")
                .containsOnlyKeys(TransactionalIT.inputs(1, 10))
                .allSatisfy((input, count) -> assertThat(count).as(input).isEqualTo(2));
    }

    private static DefaultCoordinatedConsumer<String, String> txConsumer(
            GroupKeeper k, String group, String in, KafkaClients clients) {
        return new DefaultCoordinatedConsumer<>(
                new AdapterConfig<>(
                        k,
                        group,
                        Set.of(in),
                        Map.of("bootstrap.servers", servers.bootstrapServers()),
                        new StringDeserializer(),
                        new StringDeserializer(),
                        Duration.ofMinutes(5),
                        Duration.ofMillis(500),
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(10),
                        StartPosition.earliest(),
                        OutOfRangePolicy.EARLIEST,
                        new ConsumerRebalanceListener() {
                            @Override
                            public void onPartitionsRevoked(java.util.Collection<TopicPartition> partitions) {}

                            @Override
                            public void onPartitionsAssigned(java.util.Collection<TopicPartition> partitions) {}
                        },
                        null,
                        mb -> {},
                        null,
                        new TransactionalConfig(
                                new StringSerializer(), new StringSerializer(), "groupkeeper/", Map.of()),
                        new KafkaClientListener() {}),
                clients);
    }

    /**
     * The real clients, whose producers' {@code sendOffsetsToTransaction} times out (before reaching the broker) while
     * {@code failures} is above zero.
     */
    private static final class OffsetsTimeOut extends ForwardingKafkaClients {

        private final AtomicInteger failures;

        OffsetsTimeOut(AtomicInteger failures) {
            this.failures = failures;
        }

        @Override
        @SuppressWarnings("unchecked")
        public Producer<Object, Object> producer(
                Map<String, Object> properties, Serializer<Object> keys, Serializer<Object> values) {
            Producer<Object, Object> real = REAL.producer(properties, keys, values);
            return (Producer<Object, Object>) Proxy.newProxyInstance(
                    Producer.class.getClassLoader(), new Class<?>[] {Producer.class}, (proxy, method, args) -> {
                        if (method.getName().equals("sendOffsetsToTransaction")
                                && failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                            throw new TimeoutException("injected: sendOffsetsToTransaction() timed out");
                        }
                        try {
                            return method.invoke(real, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }
}
