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
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * A transactional container's batch handler that names one record with {@code BatchFailedException}: the call's
 * outputs are dropped as one set, so while retries are left the batch comes again whole; on the last attempt the
 * records before the one named run again as a batch of their own, in the transaction, and only the record named is
 * dead-lettered.
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
                        .otherwise(ErrorAction.retry(2, Backoff.fixed(Duration.ofMillis(50))).thenDeadLetter()).build())
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
                }).build());

        await().atMost(WAIT).untilAsserted(() -> assertThat(TransactionalIT.kafkaOffset(group, in, 0)).hasValue(6));
        // the records before and after the one named: their outputs committed once; nothing of offset 3
        Map<String, Integer> seen = TransactionalIT.readCommitted(out, 5);
        assertThat(seen).containsOnlyKeys("0/0", "0/1", "0/2", "0/4", "0/5")
                .allSatisfy((k, n) -> assertThat(n).as(k).isEqualTo(1));
        // only the record named is dead-lettered, once, after the policy's 2 attempts
        List<ConsumerRecord<String, String>> dead = PoisonOutputIT.readCommittedAll(in + "-dlt");
        assertThat(dead).extracting(r -> header(r, "groupkeeper.dlt.original.offset")).containsExactly("3");
        assertThat(header(dead.get(0), "groupkeeper.dlt.attempts")).isEqualTo("2");
        assertThat(header(dead.get(0), "groupkeeper.dlt.exception.message")).isEqualTo("poison at 3");
        // the records before it ran again as a batch of their own on the last attempt
        assertThat(calls).contains(List.of(0L, 1L, 2L));
    }
}
