package io.groupkeeper.spring.differential.retry;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The application around Spring Kafka's sample-04 listener ({@link Sample04Listener}), shared by both runs of the
 * differential test: Boot's auto-configuration and the body the listener calls (what the application observes). No
 * component scan: the test registers the listener class, as written or with its annotation swapped.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class Sample04 {

    @Bean
    public Body body() {
        return new Body();
    }

    /** One call of the listener or of the DLT handler: the payload, the topic it came from, when. */
    public record Call(String kind, String value, String topic, long nanos, Map<String, String> headers) {}

    /** The listener's body: fails values starting with "fail", keeps every call. */
    public static class Body {
        public final Queue<Call> calls = new ConcurrentLinkedQueue<>();

        public void listen(String in, String topic, Map<String, Object> headers) {
            calls.add(new Call("listen", in, topic, System.nanoTime(), Map.of()));
            if (in.startsWith("fail")) {
                throw new IllegalStateException("failed: " + in);
            }
        }

        public void dlt(String in, String topic, Map<String, Object> headers) {
            calls.add(new Call("dlt", in, topic, System.nanoTime(), decoded(headers)));
        }

        /** The retry and original headers the DLT handler sees, decoded as Spring writes them. */
        static Map<String, String> decoded(Map<String, Object> headers) {
            Map<String, String> out = new TreeMap<>();
            headers.forEach((k, v) -> {
                if (k.startsWith("kafka_original")
                        || k.startsWith("kafka_exception")
                        || k.startsWith("retry_topic")
                        || k.startsWith("kafka_dlt")) {
                    out.put(k, text(k, v));
                }
            });
            return out;
        }

        private static String text(String name, Object v) {
            if (!(v instanceof byte[] b)) {
                return String.valueOf(v instanceof List<?> l && !l.isEmpty() ? l.get(l.size() - 1) : v);
            }
            if (name.endsWith("-partition") || name.endsWith("-attempts")) {
                return b.length == 4 ? Integer.toString(ByteBuffer.wrap(b).getInt()) : "bytes" + b.length;
            }
            if (name.endsWith("-offset")) {
                return b.length == 8 ? Long.toString(ByteBuffer.wrap(b).getLong()) : "bytes" + b.length;
            }
            if (name.endsWith("timestamp") || name.endsWith("-stacktrace")) {
                return "present"; // times and stacks differ from run to run
            }
            return new String(b, StandardCharsets.UTF_8);
        }
    }
}
