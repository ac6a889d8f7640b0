package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.differential.AnnotationSwap;
import io.groupkeeper.spring.differential.retry.Sample04;
import io.groupkeeper.spring.differential.retry.Sample04Listener;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.support.GenericApplicationContext;

/**
 * The sample-04 case of {@link DifferentialIT}: {@link Sample04Listener} ({@code @RetryableTopic} + {@code @DltHandler})
 * once as written on Spring for Apache Kafka, once with its annotation swapped by {@link AnnotationSwap} on the
 * starter; what the application and the topics show, with the run's own names replaced by placeholders.
 */
final class Sample04Differential {

    /** The values sent, in order, to partition 0 of a new 1-partition topic. */
    static final List<String> VALUES = List.of("a", "fail-1", "b", "fail-2", "c");

    private Sample04Differential() {}

    /**
     * What one run observes: the listener's and DLT handler's calls in order per value (kind@topic), the DLT
     * handler's decoded retry/original/exception headers per value, the retry and DLT topics that exist, every record
     * of them with its decoded headers, and per failing value the gaps between its attempts.
     */
    record Observed(
            Map<String, List<String>> calls,
            Map<String, Map<String, String>> dltHeaders,
            List<String> topics,
            List<Map<String, String>> forwarded,
            Map<String, List<Long>> gapsMs) {}

    static Observed run(boolean onSpringKafka) {
        String topic = SharedServers.topic(1);
        String group = SharedServers.name("s04");
        Class<?> listener =
                onSpringKafka ? Sample04Listener.class : AnnotationSwap.toGroupKeeper(Sample04Listener.class);
        try (var ctx = new SpringApplicationBuilder(Sample04.class)
                .web(WebApplicationType.NONE)
                .initializers(c -> ((GenericApplicationContext) c).registerBean("sample04Listener", listener))
                .properties(Map.of(
                        "groupkeeper.zookeeper.connect",
                        SharedServers.get().zkConnectString(),
                        "spring.kafka.bootstrap-servers",
                        SharedServers.get().bootstrapServers(),
                        "spring.kafka.consumer.auto-offset-reset",
                        "earliest",
                        "groupkeeper.listener.stop-deadline",
                        "5s",
                        "app.topic",
                        topic,
                        "app.group",
                        group))
                .run()) {
            Sample04.Body body = ctx.getBean(Sample04.Body.class);
            for (String v : VALUES) {
                SharedServers.send(topic, 0, v);
            }
            await().atMost(WAIT.plusSeconds(30))
                    .until(() -> body.calls.stream()
                                            .filter(c -> c.kind().equals("dlt"))
                                            .count()
                                    == 2
                            && body.calls.stream()
                                            .filter(c -> c.kind().equals("listen"))
                                            .count()
                                    == 3 + 2 * 5);
            Map<String, List<String>> calls = new TreeMap<>();
            Map<String, List<Long>> times = new TreeMap<>();
            Map<String, Map<String, String>> dltHeaders = new TreeMap<>();
            for (Sample04.Call c : body.calls) {
                calls.computeIfAbsent(c.value(), v -> new ArrayList<>())
                        .add(c.kind() + "@" + c.topic().replace(topic, "<topic>"));
                times.computeIfAbsent(c.value(), v -> new ArrayList<>()).add(c.nanos());
                if (c.kind().equals("dlt")) {
                    Map<String, String> h = new TreeMap<>();
                    c.headers()
                            .forEach((k, v) ->
                                    h.put(k, v.replace(topic, "<topic>").replace(group, "<group>")));
                    dltHeaders.put(c.value(), h);
                }
            }
            Map<String, List<Long>> gaps = new TreeMap<>();
            times.forEach((v, ts) -> {
                if (v.startsWith("fail")) {
                    List<Long> g = new ArrayList<>();
                    for (int i = 1; i < ts.size() - 1; i++) { // listener attempts (the last call is the DLT's)
                        g.add(Duration.ofNanos(ts.get(i) - ts.get(i - 1)).toMillis());
                    }
                    gaps.put(v, g);
                }
            });
            List<String> topics;
            try (Admin admin =
                    Admin.create(Map.of("bootstrap.servers", SharedServers.get().bootstrapServers()))) {
                topics = admin.listTopics().names().get().stream()
                        .filter(t -> t.startsWith(topic + "-"))
                        .map(t -> t.replace(topic, "<topic>"))
                        .sorted()
                        .toList();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            List<Map<String, String>> forwarded = new ArrayList<>();
            for (String t : topics) {
                for (ConsumerRecord<String, String> r : read(t.replace("<topic>", topic))) {
                    Map<String, String> d = new LinkedHashMap<>();
                    d.put("topic", t);
                    d.put("value", r.value());
                    d.put("key", r.key());
                    d.put("partition", Integer.toString(r.partition()));
                    List<String> names = new ArrayList<>();
                    for (Header h : r.headers()) {
                        names.add(h.key());
                        d.put(h.key(), decode(h, topic, group, r));
                    }
                    d.put("header-order", String.join(",", names));
                    forwarded.add(d);
                }
            }
            forwarded.sort(Comparator.comparing((Map<String, String> m) -> m.get("topic"))
                    .thenComparing(m -> m.get("value"))
                    .thenComparing(m -> m.getOrDefault("retry_topic-attempts", "")));
            return new Observed(calls, dltHeaders, topics, forwarded, gaps);
        }
    }

    private static String decode(Header h, String topic, String group, ConsumerRecord<String, String> r) {
        byte[] b = h.value();
        String k = h.key();
        if (k.equals("retry_topic-attempts") || k.endsWith("-partition")) {
            return Integer.toString(ByteBuffer.wrap(b).getInt());
        }
        if (k.endsWith("-offset")) {
            return Long.toString(ByteBuffer.wrap(b).getLong());
        }
        if (k.equals("retry_topic-backoff-timestamp")) { // a BigInteger of epoch millis near the forward's own time
            long due = new BigInteger(b).longValue(); // (the attempt gaps check the delays themselves)
            return Math.abs(due - r.timestamp()) < 60_000 ? "epoch-millis" : "not-a-time:" + due;
        }
        if (k.endsWith("timestamp") || k.endsWith("-stacktrace")) {
            return "present";
        }
        return new String(b, StandardCharsets.UTF_8).replace(topic, "<topic>").replace(group, "<group>");
    }

    private static List<ConsumerRecord<String, String>> read(String topic) {
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(
                Map.of("bootstrap.servers", SharedServers.get().bootstrapServers(), "auto.offset.reset", "earliest"),
                new StringDeserializer(),
                new StringDeserializer())) {
            List<org.apache.kafka.common.TopicPartition> parts = c.partitionsFor(topic).stream()
                    .map(p -> new org.apache.kafka.common.TopicPartition(topic, p.partition()))
                    .toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<org.apache.kafka.common.TopicPartition, Long> end = c.endOffsets(parts);
            List<ConsumerRecord<String, String>> out = new ArrayList<>();
            await().atMost(WAIT).until(() -> {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
                return parts.stream().allMatch(p -> c.position(p) >= end.get(p));
            });
            return out;
        }
    }
}
