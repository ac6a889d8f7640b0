package io.groupkeeper.benchmarks.throughput;

import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.transaction.KafkaTransactionManager;

/**
 * Spring for Apache Kafka's read-process-write, exactly once: a {@code KafkaMessageListenerContainer} (one consumer
 * thread, {@code isolation.level=read_committed}) with a {@code KafkaTransactionManager} over a transactional
 * {@code DefaultKafkaProducerFactory}; the listener sends with a {@code KafkaTemplate} of the same factory, so its
 * sends join the container's transaction, which also carries the consumed offsets ({@code sendOffsetsToTransaction}
 * with the consumer's group metadata: {@code EOSMode.V2}, the only mode).
 * <ul>
 *   <li>{@code spring-eos-batch}: a {@code BatchMessageListener}: one transaction per poll, every partition of it;</li>
 *   <li>{@code spring-eos-record}: a record {@code MessageListener}: the container runs <em>one transaction per
 *   record</em> (it starts a transaction before each record listener call and sends that record's offset into it);
 *   there is no setting that groups records of a record listener into one transaction.</li>
 * </ul>
 */
final class SpringEos {

    private SpringEos() {}

    static Run.Result batch(Run run) throws Exception {
        return run(run, true);
    }

    static Run.Result record(Run run) throws Exception {
        return run(run, false);
    }

    private static Run.Result run(Run run, boolean batch) throws Exception {
        Map<TopicPartition, Long> ends = run.ends();
        DefaultKafkaProducerFactory<String, String> pf =
                new DefaultKafkaProducerFactory<>(run.producerProps(), new StringSerializer(), new StringSerializer());
        pf.setTransactionIdPrefix("spring-" + run.group() + "-");
        KafkaTemplate<String, String> template = new KafkaTemplate<>(pf);
        Map<String, Object> consumerProps = run.consumerProps();
        consumerProps.put("auto.offset.reset", "earliest");
        consumerProps.put("isolation.level", "read_committed");
        ContainerProperties props = new ContainerProperties(Run.IN);
        props.setKafkaAwareTransactionManager(new KafkaTransactionManager<>(pf));
        props.setEosMode(ContainerProperties.EOSMode.V2);
        if (batch) {
            props.setMessageListener((BatchMessageListener<String, String>) records -> {
                for (ConsumerRecord<String, String> r : records) {
                    send(run, template, r);
                }
            });
        } else {
            props.setMessageListener((MessageListener<String, String>) r -> send(run, template, r));
        }
        KafkaMessageListenerContainer<String, String> container = new KafkaMessageListenerContainer<>(
                new DefaultKafkaConsumerFactory<>(consumerProps, new StringDeserializer(), new StringDeserializer()),
                props);
        container.setBeanName("eos-" + run.group());
        container.start();
        try {
            return run.result(run.awaitOffsetsAt(ends));
        } finally {
            container.stop();
            pf.destroy();
        }
    }

    private static void send(Run run, KafkaTemplate<String, String> template, ConsumerRecord<String, String> r) {
        run.sink().accept(r.value());
        template.send(Run.OUT, r.partition(), r.key(), Run.transform(r));
    }
}
