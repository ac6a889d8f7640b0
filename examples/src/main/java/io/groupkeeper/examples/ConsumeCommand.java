package io.groupkeeper.examples;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.OffsetOutOfRangePolicyException;
import io.groupkeeper.kafka.OutOfRangePolicy;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.ListenerContainerBuilder;
import io.groupkeeper.kafka.container.Ordering;
import io.groupkeeper.kafka.container.Recovery;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * One coordinated consumer, as its own process: prints one JSON line per record on stdout (logs go to stderr) and on
 * SIGTERM / Ctrl-C leaves the group gracefully, committing its final offsets. Start several by hand and watch the
 * partitions split, move and resume.
 */
@Command(
        name = "consume",
        mixinStandardHelpOptions = true,
        description = {
            "Consumes as one member of a ZooKeeper-coordinated group; one JSON line per record:",
            "{\"group\",\"member\",\"topic\",\"partition\",\"offset\",\"key\",\"value\"}. SIGTERM: final commit, leave.",
            "With --events, record lines also carry \"at\" (epoch ms when the record was handed over) and membership",
            "events get lines of their own: {\"event\":\"started|assigned|revoked|lost\",\"group\",\"member\",",
            "\"partitions\":[{\"topic\",\"partition\"}],\"at\"} (printed on the polling thread, in order with the records).",
            "With --ordering key|unordered, --parallelism N > 1 or --handler-ms MS > 0 it runs a listener container:",
            "a record's line is printed when its handler has finished it (waiting MS ms), up to N at a time per member,",
            "records of one key in offset order under key; SIGTERM: what is in flight finishes, final commit, leave."
        })
final class ConsumeCommand implements Callable<Integer> {

    @Mixin
    MemberOptions member;

    @Option(names = "--topic", required = true, split = ",", description = "topic(s), comma separated")
    List<String> topics;

    @Option(
            names = "--start",
            defaultValue = "latest",
            description = "where partitions without a committed offset start: earliest, latest or an ISO-8601 instant "
                    + "(default: ${DEFAULT-VALUE})")
    String start;

    @Option(
            names = "--out-of-range",
            defaultValue = "earliest",
            description = "committed offset outside the log: earliest, latest or fail (default: ${DEFAULT-VALUE})")
    String outOfRange;

    @Option(names = "--instance-id", description = "static member id (comes back to its partitions after a restart)")
    String instanceId;

    @Option(names = "--commit-interval-ms", defaultValue = "1000", description = "default: ${DEFAULT-VALUE}")
    long commitIntervalMs;

    @Option(names = "--max-records", defaultValue = "-1", description = "stop (gracefully) after this many records")
    long maxRecords;

    @Option(
            names = "--events",
            description = "also print membership events and processing times as JSON lines "
                    + "(for recorders such as the chaos test); the default output is unchanged")
    boolean events;

    @Option(
            names = "--mirror-offsets",
            description = "also write every offset committed to ZooKeeper into Kafka's own "
                    + "group offsets (asynchronous; ZooKeeper stays the source of truth), so kafka-consumer-groups and other "
                    + "Kafka tools see the group")
    boolean mirrorOffsets;

    @Option(
            names = "--mirror-group",
            paramLabel = "KAFKA_GROUP",
            description =
                    "the Kafka group id the mirror writes under (default: the group's name; implies --mirror-offsets)")
    String mirrorGroup;

    @Option(
            names = "--ordering",
            defaultValue = "partition",
            paramLabel = "partition|key|unordered",
            description = "which records of a partition may be handled at once: partition (one at a time), key (one "
                    + "at a time per key, keys in parallel) or unordered (default: ${DEFAULT-VALUE})")
    String ordering;

    @Option(
            names = "--parallelism",
            defaultValue = "1",
            paramLabel = "N",
            description = "handler calls in flight per member, shared by its partitions (default: ${DEFAULT-VALUE})")
    int parallelism;

    @Option(
            names = "--handler-ms",
            defaultValue = "0",
            paramLabel = "MS",
            description = "the handler waits this long per record, as one that calls a database would "
                    + "(default: ${DEFAULT-VALUE})")
    long handlerMs;

    @Override
    public Integer call() {
        Ordering order;
        try {
            order = Ordering.valueOf(ordering.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            System.err.println("error: --ordering must be partition, key or unordered, was " + ordering);
            return 2;
        }
        if (parallelism < 1 || handlerMs < 0) {
            System.err.println("error: --parallelism must be >= 1 and --handler-ms >= 0, were " + parallelism + " and "
                    + handlerMs);
            return 2;
        }
        if (order != Ordering.PARTITION || parallelism > 1 || handlerMs > 0) {
            if (events) {
                System.err.println("error: --events prints the plain consumer's events; it does not go with "
                        + "--ordering key|unordered, --parallelism > 1 or --handler-ms > 0");
                return 2;
            }
            return container(order);
        }
        return plainConsumer();
    }

    /** The listener container: one line per record when its handler has finished it. */
    private int container(Ordering order) {
        PrintStream out = System.out;
        ObjectMapper json = new ObjectMapper();
        GroupKeeper keeper;
        try {
            keeper = member.startKeeper();
        } catch (RuntimeException e) {
            System.err.println("error: " + e.getMessage());
            return 1;
        }
        AtomicLong count = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        ListenerContainer<String, String> container;
        try {
            ListenerContainerBuilder<String, String> b = ListenerContainer.<String, String>builder(keeper)
                    .group(member.group)
                    .topics(topics)
                    .kafkaProperties(member.kafkaProperties)
                    .kafkaProperty("bootstrap.servers", member.bootstrap)
                    .deserializers(new StringDeserializer(), new StringDeserializer())
                    .ordering(order)
                    .parallelism(parallelism)
                    .errorPolicy(ErrorPolicy.builder()
                            .deserializationFailure(Recovery.SKIP)
                            .otherwise(ErrorAction.retry(3, Backoff.fixed(Duration.ofSeconds(1)))
                                    .thenSkip())
                            .build())
                    .consumerOptions(c -> {
                        c.startPosition(StartPosition.parse(start))
                                .outOfRange(OutOfRangePolicy.parse(outOfRange))
                                .commitInterval(Duration.ofMillis(commitIntervalMs));
                        if (mirrorGroup != null) {
                            c.mirrorOffsetsToKafka(mirrorGroup);
                        } else if (mirrorOffsets) {
                            c.mirrorOffsetsToKafka();
                        }
                    })
                    .recordHandler(r -> {
                        if (handlerMs > 0) {
                            Thread.sleep(handlerMs); // the handler's work, as the option says
                        }
                        String line = json.createObjectNode()
                                .put("group", member.group)
                                .put("member", memberOf(r))
                                .put("topic", r.topic())
                                .put("partition", r.partition())
                                .put("offset", r.offset())
                                .put("key", r.key())
                                .put("value", r.value())
                                .toString();
                        synchronized (out) {
                            out.println(line);
                            out.flush();
                        }
                        if (count.incrementAndGet() == maxRecords) {
                            done.countDown();
                        }
                    });
            if (instanceId != null) {
                b.instanceId(instanceId);
            }
            container = b.build();
            container.start();
        } catch (RuntimeException e) {
            System.err.println("error: " + e.getMessage());
            keeper.close();
            return 1;
        }
        this.workers = container;
        GracefulLeave leave = GracefulLeave.onShutdown(done::countDown, "consume-shutdown");
        System.err.println("group " + member.group + " consuming " + topics + " with ordering " + ordering
                + ", parallelism " + parallelism + ", handler " + handlerMs + " ms (Ctrl-C or SIGTERM: in-flight "
                + "records finish, then it leaves gracefully)");
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            container.stop(Duration.ofSeconds(25)); // in flight finishes; final commit; the partitions are released
            keeper.close();
            System.err.println(
                    "left group " + member.group + " after " + count.get() + " records; final offsets committed");
            leave.left();
        }
        return 0;
    }

    private volatile ListenerContainer<String, String> workers;

    /** The member that owns the record's partition (the container's one worker, usually). */
    private String memberOf(ConsumerRecord<String, String> r) {
        ListenerContainer<String, String> c = workers;
        if (c != null) {
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            for (var w : c.workers()) {
                if (w.owned().contains(tp)) {
                    return w.member();
                }
            }
        }
        return "?";
    }

    private int plainConsumer() {
        PrintStream out = System.out;
        ObjectMapper json = new ObjectMapper();
        AtomicReference<CoordinatedConsumer<String, String>> self = new AtomicReference<>();
        GroupKeeper keeper;
        CoordinatedConsumer<String, String> consumer;
        try {
            keeper = member.startKeeper();
        } catch (RuntimeException e) {
            System.err.println("error: " + e.getMessage());
            return 1;
        }
        try {
            CoordinatedConsumer.Builder<String, String> b = CoordinatedConsumer.<String, String>builder(keeper)
                    .group(member.group)
                    .topics(topics)
                    .kafkaProperties(member.kafkaProperties)
                    .kafkaProperty("bootstrap.servers", member.bootstrap)
                    .deserializers(new StringDeserializer(), new StringDeserializer())
                    .startPosition(StartPosition.parse(start))
                    .outOfRange(OutOfRangePolicy.parse(outOfRange))
                    .commitInterval(Duration.ofMillis(commitIntervalMs));
            if (instanceId != null) {
                b.instanceId(instanceId);
            }
            if (mirrorGroup != null) {
                b.mirrorOffsetsToKafka(mirrorGroup);
            } else if (mirrorOffsets) {
                b.mirrorOffsetsToKafka();
            }
            if (events) {
                b.listener(eventPrinter(out, json, self));
            }
            consumer = b.build();
            self.set(consumer);
            consumer.start();
        } catch (RuntimeException e) {
            System.err.println("error: " + e.getMessage());
            keeper.close();
            return 1;
        }
        GracefulLeave leave = GracefulLeave.onShutdown(consumer, "consume-shutdown");
        System.err.println("member " + consumer.memberId() + " of group " + member.group + " consuming " + topics
                + " (Ctrl-C or SIGTERM to leave gracefully)");
        if (events) {
            printEvent(out, json, "started", consumer.memberId(), List.of());
        }
        long count = 0;
        try {
            while (maxRecords < 0 || count < maxRecords) {
                try {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                        ObjectNode line = json.createObjectNode()
                                .put("group", member.group)
                                .put("member", consumer.memberId())
                                .put("topic", r.topic())
                                .put("partition", r.partition())
                                .put("offset", r.offset())
                                .put("key", r.key())
                                .put("value", r.value());
                        if (events) {
                            line.put("at", System.currentTimeMillis());
                        }
                        out.println(line);
                        count++;
                    }
                    out.flush();
                } catch (OffsetOutOfRangePolicyException e) {
                    System.err.println("error: " + e.getMessage());
                }
            }
        } catch (WakeupException e) {
            // SIGTERM / Ctrl-C: leave gracefully below
        } finally {
            out.flush();
            consumer.close();
            out.flush(); // the revocation events printed by close()
            keeper.close();
            System.err.println("member " + consumer.memberId() + " left group " + member.group + " after " + count
                    + " records; final offsets committed");
            leave.left();
        }
        return 0;
    }

    /** Prints the consumer's membership events (on the polling thread, so in order with the records). */
    private ConsumerRebalanceListener eventPrinter(
            PrintStream out, ObjectMapper json, AtomicReference<CoordinatedConsumer<String, String>> self) {
        return new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                printEvent(out, json, "assigned", self.get().memberId(), partitions);
            }

            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                printEvent(out, json, "revoked", self.get().memberId(), partitions);
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                printEvent(out, json, "lost", self.get().memberId(), partitions);
            }
        };
    }

    private void printEvent(
            PrintStream out, ObjectMapper json, String event, String memberId, Collection<TopicPartition> partitions) {
        ObjectNode line = json.createObjectNode()
                .put("event", event)
                .put("group", member.group)
                .put("member", memberId);
        ArrayNode list = line.putArray("partitions");
        partitions.forEach(tp -> list.addObject().put("topic", tp.topic()).put("partition", tp.partition()));
        line.put("at", System.currentTimeMillis());
        out.println(line);
        out.flush();
    }
}
