package io.groupkeeper.kafka.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connects the {@code KafkaConsumer} to the brokers that lead the topics' partitions, so the first fetch after the
 * first assignment does not also pay for metadata, a connection and its handshake. Two steps: {@linkplain #lookUpTopics
 * looking the topics up} (the bootstrap connection and a metadata request; what it learns of the topics is handed to
 * {@link KafkaTopicMetadata}, so that neither a leader's first assignment nor the topic check need an Admin client),
 * then {@linkplain #connectToLeaders connecting to the partitions' leaders} (end offsets). {@code start()} runs the
 * first step whole while the member joins and the second until the join ends (the join's end wakes the consumer);
 * what did not finish runs again in {@code poll()} while nothing is assigned yet. Best effort, within the given time
 * (at most 2 s); a wakeup (an event, the join's end) interrupts a step, which is tried again at the next wait if that
 * event assigned nothing. Polling thread only.
 */
final class ConsumerWarmUp {

    // The adapter's one logger: users' logging configurations and the tests name it.
    private static final Logger LOG = LoggerFactory.getLogger(DefaultCoordinatedConsumer.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final Collection<String> topics;
    /** {@code bootstrap.servers}, for the line that says Kafka cannot be reached. */
    private final Object bootstrap;
    /** The time the look-up in progress was given. */
    private Duration asked = Duration.ZERO;
    /** Partition counts of the subscribed topics found, and those Kafka lacks. */
    private final Map<String, Integer> found = new HashMap<>();

    private final Set<String> notFound = new HashSet<>();
    /** The partitions of the topics found, once {@link #lookUpTopics} completed. */
    private List<TopicPartition> partitions;

    private boolean done;

    ConsumerWarmUp(Collection<String> topics, Object bootstrap) {
        this.topics = topics;
        this.bootstrap = bootstrap;
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

    /** The deadline of a warm-up given {@code remainingNanos} of the caller's time. */
    static long deadline(long remainingNanos) {
        return System.nanoTime() + Math.min(remainingNanos, TIMEOUT.toNanos());
    }

    /** Both steps, or what is left of them (the caller's thread names group and member in the MDC). */
    void run(Consumer<?, ?> consumer, long remainingNanos) {
        long deadline = deadline(remainingNanos);
        lookUpTopics(consumer, deadline);
        connectToLeaders(consumer, deadline);
    }

    /** Step 1: the topics' partitions ({@link #found}, {@link #notFound}); at once if done before. */
    void lookUpTopics(Consumer<?, ?> consumer, long deadlineNanos) {
        if (done || partitions != null) {
            return;
        }
        try {
            List<TopicPartition> all = new ArrayList<>();
            for (String topic : topics) {
                if (found.containsKey(topic) || notFound.contains(topic)) {
                    continue; // looked up before a wakeup cut the loop short
                }
                asked = remaining(deadlineNanos);
                List<PartitionInfo> infos = consumer.partitionsFor(topic, asked);
                if (infos.isEmpty()) {
                    notFound.add(topic);
                } else {
                    found.put(topic, infos.size());
                }
            }
            for (Map.Entry<String, Integer> t : found.entrySet()) {
                for (int p = 0; p < t.getValue(); p++) {
                    all.add(new TopicPartition(t.getKey(), p));
                }
            }
            partitions = all;
        } catch (WakeupException e) {
            // interrupted: poll() tries again while nothing is assigned
        } catch (TimeoutException e) {
            if (asked.compareTo(TIMEOUT.dividedBy(2)) < 0) {
                return; // cut short by the caller's poll timeout: poll() tries again while nothing is assigned
            }
            done = true;
            LOG.warn(
                    "Kafka at {} cannot be reached: no answer to a metadata request within {} ms (is "
                            + "bootstrap.servers right?)",
                    bootstrap,
                    asked.toMillis());
        } catch (KafkaException e) {
            failed(e);
        }
    }

    /** Step 2, after step 1: a request to every partition's leader. */
    void connectToLeaders(Consumer<?, ?> consumer, long deadlineNanos) {
        if (done || partitions == null) {
            return;
        }
        try {
            if (!partitions.isEmpty()) {
                consumer.endOffsets(partitions, remaining(deadlineNanos));
            }
            done = true;
        } catch (WakeupException e) {
            // interrupted: poll() tries again while nothing is assigned
        } catch (KafkaException e) {
            failed(e);
        }
    }

    private void failed(KafkaException e) {
        done = true; // not worth a second wait
        LOG.debug("warm-up failed (harmless): {}", e.toString());
    }

    private static Duration remaining(long deadlineNanos) {
        return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    }
}
