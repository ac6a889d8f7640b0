package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.BatchFailedException;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.HandlerContext;
import io.groupkeeper.kafka.container.TransactionalSender;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * A transactional container's batch handler that names one record with {@code BatchFailedException}: the call's
 * outputs are dropped as one set, so while retries are left the batch comes again whole; on the last attempt the
 * records before the one named run again as a batch of their own, in the transaction, and only the record named is
 * dead-lettered. A batch whose output the producer always rejects: the attempts are the batch's, kept across the aborts
 * that rewind it, and after the last each of its records is dead-lettered once.
 */
class TransactionalBatchIT extends ContainerTestSupport {

    @Test
    void aBatchWhoseRetriesAreSpentDeadLettersOnlyTheRecordNamedAndCommitsTheOthersOutputsOnce() throws Exception {
        String in = newTopic(1);
        String out = newTopic(1);
        String group = newName("g");
        produce(in, 1, 6); // before the container starts: one fetch, one batch of six
        List<List<Long>> calls = Collections.synchronizedList(new ArrayList<>());
        started(container(newKeeper(), group, in)
                .transactional(new StringSerializer(), new StringSerializer())
                .errorPolicy(ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(2, Backoff.fixed(Duration.ofMillis(50)))
                                .thenDeadLetter())
                        .build())
                .batchHandler(records -> {
                    calls.add(records.stream().map(ConsumerRecord::offset).toList());
                    TransactionalSender<String, String> sender = HandlerContext.sender();
                    for (int i = 0; i < records.size(); i++) {
                        ConsumerRecord<String, String> r = records.get(i);
                        sender.send(out, r.key(), TransactionalIT.json(r)); // sent, then the batch fails
                        if (r.offset() == 3) {
                            throw new BatchFailedException(i, new IllegalArgumentException("poison at 3"));
                        }
                    }
                })
                .build());

        await().atMost(WAIT)
                .untilAsserted(() ->
                        assertThat(TransactionalIT.kafkaOffset(group, in, 0)).hasValue(6));
        // the records before and after the one named: their outputs committed once; nothing of offset 3
        Map<String, Integer> seen = TransactionalIT.readCommitted(out, 5);
        assertThat(seen)
                .containsOnlyKeys("0/0", "0/1", "0/2", "0/4", "0/5")
                .allSatisfy((k, n) -> assertThat(n).as(k).isEqualTo(1));
        // only the record named is dead-lettered, once, after the policy's 2 attempts
        List<ConsumerRecord<String, String>> dead = PoisonOutputIT.readCommittedAll(in + "-dlt");
        assertThat(dead)
                .extracting(r -> header(r, "groupkeeper.dlt.original.offset"))
                .containsExactly("3");
        assertThat(header(dead.get(0), "groupkeeper.dlt.attempts")).isEqualTo("2");
        assertThat(header(dead.get(0), "groupkeeper.dlt.exception.message")).isEqualTo("poison at 3");
        // the records before it ran again as a batch of their own on the last attempt
        assertThat(calls).contains(List.of(0L, 1L, 2L));
    }

    @Test
    void aBatchWhoseOutputIsAlwaysRejectedDeadLettersEachOfItsRecordsOnceAfterThePolicysAttempts() throws Exception {
        int maxRequest = 16_384;
        String in = newTopic(1);
        String out = newTopic(1);
        String group = newName("g");
        produce(in, 1, 6); // before the container starts: one fetch, one batch of six
        List<List<Long>> calls = Collections.synchronizedList(new ArrayList<>());
        started(container(newKeeper(), group, in)
                .transactional(new StringSerializer(), new StringSerializer())
                .producerProperty("max.request.size", maxRequest)
                .errorPolicy(ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(3, Backoff.fixed(Duration.ofMillis(50)))
                                .thenDeadLetter())
                        .build())
                .batchHandler(records -> {
                    calls.add(records.stream().map(ConsumerRecord::offset).toList());
                    TransactionalSender<String, String> sender = HandlerContext.sender();
                    for (ConsumerRecord<String, String> r : records) { // offset 2's output: ten times too large
                        sender.send(
                                out, r.key(), r.offset() == 2 ? "x".repeat(10 * maxRequest) : TransactionalIT.json(r));
                    }
                })
                .build());

        // Kafka's transactional offset passes the batch: the aborts that rewound it to offset 0 did not loop
        await().atMost(WAIT)
                .untilAsserted(() ->
                        assertThat(TransactionalIT.kafkaOffset(group, in, 0)).hasValue(6));
        // each of the batch's records dead-lettered once, after the batch's 3 attempts, naming the rejection
        List<ConsumerRecord<String, String>> dead = PoisonOutputIT.readCommittedAll(in + "-dlt");
        assertThat(dead)
                .extracting(r -> header(r, "groupkeeper.dlt.original.offset"))
                .containsExactly("0", "1", "2", "3", "4", "5");
        assertThat(dead).allSatisfy(r -> {
            assertThat(header(r, "groupkeeper.dlt.attempts")).isEqualTo("3");
            assertThat(header(r, "groupkeeper.dlt.exception.class")).isEqualTo(RecordTooLargeException.class.getName());
        });
        // no output of an aborted attempt committed; the handler was called 3 times at the batch, no more
        assertThat(PoisonOutputIT.readCommittedAll(out)).isEmpty();
        assertThat(calls).filteredOn(c -> c.contains(2L)).hasSize(3);
    }
}
