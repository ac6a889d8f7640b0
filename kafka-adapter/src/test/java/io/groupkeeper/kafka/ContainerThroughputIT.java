package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.kafka.container.Ordering;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Records per second of the container on one partition with 64 workers and a handler that waits 10 ms, per ordering
 * (docs/parallel.md). A measurement, not a default test: {@code -Dgroupkeeper.throughput=true}. Prints one line per
 * case; asserts only that the orderings beyond PARTITION beat one-at-a-time by far.
 */
@EnabledIfSystemProperty(named = "groupkeeper.throughput", matches = "true")
class ContainerThroughputIT extends ContainerTestSupport {

    private double run(Ordering ordering, int records, int keys) throws Exception {
        String topic = newTopic(1);
        List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            sent.add(producer.send(new ProducerRecord<>(topic, 0, "key" + (i % keys), "v" + i)));
        }
        for (var f : sent) {
            f.get();
        }
        AtomicInteger done = new AtomicInteger();
        long[] first = {0};
        started(container(newKeeper(), newName("throughput"), topic)
                .ordering(ordering)
                .parallelism(64)
                .recordHandler(r -> {
                    if (first[0] == 0) {
                        first[0] = System.nanoTime();
                    }
                    TimeUnit.MILLISECONDS.sleep(10); // the handler's work: what this measures
                    done.incrementAndGet();
                })
                .build());
        await().atMost(Duration.ofMinutes(5)).until(() -> done.get() >= records);
        double perSecond = records / ((System.nanoTime() - first[0]) / 1e9);
        System.out.printf(
                "THROUGHPUT ordering=%s keys=%d records=%d workers=64 handler=10ms: %.0f records/s%n",
                ordering, keys, records, perSecond);
        return perSecond;
    }

    @Test
    void onePartitionSixtyFourWorkersTenMillisecondHandler() throws Exception {
        double partition = run(Ordering.PARTITION, 300, 10_000);
        double key = run(Ordering.KEY, 20_000, 10_000);
        double unordered = run(Ordering.UNORDERED, 20_000, 10_000);
        double fewKeys = run(Ordering.KEY, 4_000, 8);
        assertThat(key).isGreaterThan(10 * partition);
        assertThat(unordered).isGreaterThan(10 * partition);
        assertThat(fewKeys).isGreaterThan(4 * partition);
    }
}
