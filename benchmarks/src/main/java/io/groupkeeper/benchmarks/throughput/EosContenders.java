package io.groupkeeper.benchmarks.throughput;

import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.kafka.container.HandlerContext;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.ListenerContainerBuilder;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * groupkeeper's read-process-write contenders: every input record becomes one output record
 * ({@link Run#transform}) in the output partition of the input's number. Transactional ones are measured until Kafka's
 * group offsets, read stable, reach the input's log end (outputs and offsets commit together); {@code gk-plain} until
 * its last {@code commitSync()} after a producer {@code flush()}.
 */
final class EosContenders {

    private EosContenders() {}

    /** {@code gk-eos-poll} / {@code gk-eos-100ms}: CoordinatedConsumer's transactional mode, a poll loop. */
    static Contender coordinatedTransactional(Duration commitInterval) {
        return run -> {
            Map<TopicPartition, Long> ends = run.ends();
            CoordinatedConsumer.Builder<String, String> b = consumer(run, commitInterval)
                    .kafkaProperty(
                            "isolation.level", "read_committed") // as the transform command and Spring's consumer
                    .transactional(new StringSerializer(), new StringSerializer());
            producerSettings(run).forEach(b::producerProperty);
            try (CoordinatedConsumer<String, String> c = b.build().start()) {
                while (run.sink().done.getCount() > 0) {
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                        run.sink().accept(r.value());
                        c.send(
                                new TopicPartition(r.topic(), r.partition()),
                                new ProducerRecord<>(Run.OUT, r.partition(), r.key(), Run.transform(r)));
                    }
                }
                // the last batch counts as processed at the next poll; the commit comes at a poll after the interval
                while (!run.offsetsAt(ends)) {
                    if (!c.poll(Duration.ofMillis(5)).isEmpty()) {
                        throw new IllegalStateException("records after the end");
                    }
                }
                return run.result(System.nanoTime());
            }
        };
    }

    /** {@code gk-plain}: CoordinatedConsumer, not transactional, one idempotent producer, commits every 100 ms. */
    static Run.Result coordinatedPlain(Run run) throws Exception {
        try (KafkaProducer<String, String> producer =
                        new KafkaProducer<>(run.producerProps(), new StringSerializer(), new StringSerializer());
                CoordinatedConsumer<String, String> c =
                        consumer(run, Duration.ofMillis(100)).build().start()) {
            while (run.sink().done.getCount() > 0) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    run.sink().accept(r.value());
                    producer.send(new ProducerRecord<>(Run.OUT, r.partition(), r.key(), Run.transform(r)));
                }
            }
            producer.flush();
            c.commitSync();
            return run.result(System.nanoTime());
        }
    }

    /**
     * {@code container-eos-poll} / {@code container-eos-100ms}: the listener container's transactional mode, one
     * worker, a record handler sending one output per input through {@link HandlerContext#sender()}.
     */
    static Contender containerTransactional(Duration commitInterval) {
        return run -> {
            Map<TopicPartition, Long> ends = run.ends();
            ListenerContainerBuilder<String, String> b = ListenerContainer.<String, String>builder(run.keeper())
                    .group(run.group())
                    .topics(Run.IN)
                    .kafkaProperties(run.consumer())
                    .kafkaProperty("bootstrap.servers", run.bootstrap())
                    .kafkaProperty("isolation.level", "read_committed")
                    .deserializers(new StringDeserializer(), new StringDeserializer())
                    .createDeadLetterTopics(true)
                    .consumerOptions(
                            o -> o.startPosition(StartPosition.earliest()).commitInterval(commitInterval))
                    .transactional(new StringSerializer(), new StringSerializer())
                    .recordHandler(r -> {
                        run.sink().accept(r.value());
                        HandlerContext.<String, String>sender()
                                .send(new ProducerRecord<>(Run.OUT, r.partition(), r.key(), Run.transform(r)));
                    });
            producerSettings(run).forEach(b::producerProperty);
            try (ListenerContainer<String, String> c = b.build().start()) {
                return run.result(run.awaitOffsetsAt(ends));
            }
        };
    }

    private static CoordinatedConsumer.Builder<String, String> consumer(Run run, Duration commitInterval) {
        return CoordinatedConsumer.<String, String>builder(run.keeper())
                .group(run.group())
                .topics(Run.IN)
                .kafkaProperties(run.consumer())
                .kafkaProperty("bootstrap.servers", run.bootstrap())
                .deserializers(new StringDeserializer(), new StringDeserializer())
                .startPosition(StartPosition.earliest())
                .commitInterval(commitInterval);
    }

    /** The producer settings but the servers (the transactional producers take those from the consumer's). */
    private static Map<String, Object> producerSettings(Run run) {
        Map<String, Object> p = run.producerProps();
        p.remove("bootstrap.servers");
        return p;
    }
}
