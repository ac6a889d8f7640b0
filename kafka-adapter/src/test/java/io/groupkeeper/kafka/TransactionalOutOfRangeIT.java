package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The transactional mode meets a position that Kafka's retention deleted, against in-process ZooKeeper and Kafka:
 * the out-of-range policy's correction is where every later rewind goes.
 */
class TransactionalOutOfRangeIT extends KafkaTestSupport {

    /**
     * A transaction holds the outputs of records from 0 when retention deletes the records before 15; a later poll
     * finds the position below the log start and the policy ({@code earliest}) moves it to 15. An abort then (an
     * output rejected) went back to where the transaction began, 0: below the log start, and the next commit wrote 0
     * to ZooKeeper over the stored correction 15 (the simulator's transactional seeds 5000617 and others, with Kafka's
     * retention in the schedules: "ZooKeeper's offset of record moved backwards from 18 to 16"). A correction now moves
     * where the transaction rewinds to, as an adopted reset does, and is stored through a commit like any other: the
     * open transaction commits with it. (Each record is a batch of its own and a fetch takes
     * one batch, so the consumer holds at most a record or two it fetched before the deletion.)
     */
    @Test
    void anAbortAfterACorrectionGoesBackToTheCorrectionNotBelowTheLogStart() throws Exception {
        String in = newTopic(1);
        String out = newTopic(1);
        String group = newName("g");
        for (int i = 0; i < 20; i++) {
            produce(in, 1, 1);
        }
        CoordinatedConsumer<String, String> a = consumer(newKeeper(), group, in)
                .kafkaProperty("max.partition.fetch.bytes", 1)
                .startPosition(StartPosition.earliest())
                .outOfRange(OutOfRangePolicy.EARLIEST)
                .commitInterval(Duration.ofMinutes(5))
                .transactional(new StringSerializer(), new StringSerializer())
                .build();
        toClose.add(a);
        a.start();
        assertThat(TransactionalIT.consumeAndSend(a, out, 5))
                .as("the transaction is open from 0")
                .isEqualTo(0);
        TopicPartition tp = new TopicPartition(in, 0);
        admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(15))).all().get();

        List<Long> received = new ArrayList<>();
        await().atMost(WAIT).until(() -> {
            for (ConsumerRecord<String, String> r : a.poll(Duration.ofMillis(100))) {
                received.add(r.offset());
                a.send(tp, new ProducerRecord<>(out, r.key(), TransactionalIT.json(r)));
            }
            return received.stream().anyMatch(o -> o >= 15);
        });
        assertThat(received)
                .as("what was fetched before the deletion, then the log start")
                .filteredOn(o -> o >= 7)
                .startsWith(15L);
        assertThat(storedOffset(group, in, 0)).as("the correction, stored").hasValue(15);

        long at = a.abort(tp);
        assertThat(at)
                .as("where the aborted transaction sends the partition back")
                .isEqualTo(15);
        a.commitSync();
        assertThat(storedOffset(group, in, 0))
                .as("ZooKeeper's offset after the abort's commit")
                .hasValue(15);

        assertThat(TransactionalIT.consumeAndSend(a, out, 5))
                .as("the records after the abort")
                .isEqualTo(15);
        a.commitSync();
        TransactionalIT.awaitKafkaOffset(group, in, 0, 20);
        assertThat(storedOffset(group, in, 0)).hasValue(20);
        List<String> processed = new ArrayList<>(TransactionalIT.inputs(1, 5)); // (the first five)
        received.stream().filter(o -> o < 15).forEach(o -> processed.add("0/" + o));
        processed.addAll(TransactionalIT.inputs(1, 20).subList(15, 20));
        assertThat(TransactionalIT.readCommitted(out, processed.size()))
                .as("outputs committed: the records processed before the correction (its commit carries them), then"
                        + " the log from its start, once each")
                .containsOnlyKeys(processed)
                .allSatisfy((input, count) -> assertThat(count).as(input).isEqualTo(1));
    }
}
