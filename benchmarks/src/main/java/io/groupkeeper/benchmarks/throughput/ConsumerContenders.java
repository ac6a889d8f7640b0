package io.groupkeeper.benchmarks.throughput;

import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.kafka.container.ListenerContainer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The consuming contenders without Spring: every one hands each record's value to the run's {@link Sink}, commits its
 * positions once a second, and is measured from its first to its last record.
 */
final class ConsumerContenders {

    private ConsumerContenders() {}

    /** {@code kafka-poll}: a plain KafkaConsumer, assign + seek to the start, poll, commitAsync once a second. */
    static Run.Result kafkaPoll(Run run) throws InterruptedException {
        try (KafkaConsumer<String, String> c =
                new KafkaConsumer<>(run.consumerProps(), new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < run.partitions(); p++) {
                tps.add(new TopicPartition(Run.IN, p));
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            long nextCommit = System.nanoTime() + 1_000_000_000L;
            while (run.sink().done.getCount() > 0) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    run.sink().accept(r.value());
                }
                if (System.nanoTime() - nextCommit >= 0) {
                    c.commitAsync();
                    nextCommit = System.nanoTime() + 1_000_000_000L;
                }
            }
            return run.consumed();
        }
    }

    /** {@code coordinated-poll}: a CoordinatedConsumer poll loop (one member; its default 1 s fenced commits). */
    static Run.Result coordinatedPoll(Run run) throws InterruptedException {
        try (CoordinatedConsumer<String, String> c = CoordinatedConsumer.<String, String>builder(run.keeper())
                .group(run.group())
                .topics(Run.IN)
                .kafkaProperties(run.consumer())
                .kafkaProperty("bootstrap.servers", run.bootstrap())
                .deserializers(new StringDeserializer(), new StringDeserializer())
                .startPosition(StartPosition.earliest())
                .build()
                .start()) {
            while (run.sink().done.getCount() > 0) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    run.sink().accept(r.value());
                }
            }
            return run.consumed();
        }
    }

    /** {@code container}: the listener container, one worker, a record handler, the default error policy. */
    static Run.Result container(Run run) throws InterruptedException {
        try (ListenerContainer<String, String> c = ListenerContainer.<String, String>builder(run.keeper())
                .group(run.group())
                .topics(Run.IN)
                .kafkaProperties(run.consumer())
                .kafkaProperty("bootstrap.servers", run.bootstrap())
                .deserializers(new StringDeserializer(), new StringDeserializer())
                .createDeadLetterTopics(true)
                .consumerOptions(b -> b.startPosition(StartPosition.earliest()))
                .recordHandler(r -> run.sink().accept(r.value()))
                .build()
                .start()) {
            return run.consumed();
        }
    }
}
