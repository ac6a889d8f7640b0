package io.groupkeeper.kafka.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connects the {@code KafkaConsumer} to the brokers that lead the topics' partitions, so the first fetch after the
 * first assignment does not also pay for metadata, a connection and its handshake. Runs in {@code start()} while the
 * member joins (the join's end interrupts it) and, if that did not finish, in {@code poll()} while nothing is assigned
 * yet. Best effort, within the given time (at most 2 s); a wakeup (an event, the join's end) interrupts it, and it is
 * tried again at the next wait if that event assigned nothing. What it learns of the topics is handed to
 * {@link KafkaTopicMetadata}, which then need not ask the Admin client. Polling thread only.
 */
final class ConsumerWarmUp {

    // The adapter's one logger: users' logging configurations and the tests name it.
    private static final Logger LOG = LoggerFactory.getLogger(DefaultCoordinatedConsumer.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final Collection<String> topics;
    /** Partition counts of the subscribed topics found, and those Kafka lacks. */
    private final Map<String, Integer> found = new HashMap<>();
    private final Set<String> notFound = new HashSet<>();
    private boolean done;

    ConsumerWarmUp(Collection<String> topics) {
        this.topics = topics;
    }

    /** Completed, or failed for good. */
    boolean done() {
        return done;
    }

    Map<String, Integer> found() {
        return found;
    }

    Set<String> notFound() {
        return notFound;
    }

    /** {@code who}: the consumer, for the log line. */
    void run(KafkaConsumer<?, ?> consumer, long remainingNanos, String who) {
        long deadline = System.nanoTime() + Math.min(remainingNanos, TIMEOUT.toNanos());
        try {
            List<TopicPartition> all = new ArrayList<>();
            for (String topic : topics) {
                List<PartitionInfo> infos = consumer.partitionsFor(topic,
                        Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
                if (infos.isEmpty()) {
                    notFound.add(topic);
                } else {
                    found.put(topic, infos.size());
                }
                infos.forEach(i -> all.add(new TopicPartition(i.topic(), i.partition())));
            }
            if (!all.isEmpty()) {
                consumer.endOffsets(all, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            }
            done = true;
        } catch (WakeupException e) {
            // interrupted: poll() tries again while nothing is assigned
        } catch (KafkaException e) {
            done = true; // not worth a second wait
            LOG.debug("{}: warm-up failed (harmless): {}", who, e.toString());
        }
    }
}
