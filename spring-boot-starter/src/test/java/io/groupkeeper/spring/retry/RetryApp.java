package io.groupkeeper.spring.retry;

import io.groupkeeper.spring.GroupKeeperListener;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.kafka.annotation.BackOff;
import org.springframework.kafka.annotation.DltHandler;
import org.springframework.kafka.annotation.RetryableTopic;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.stereotype.Component;

/** A {@code @RetryableTopic} listener with a long delay, to see what waits on a retry and what does not. */
@SpringBootApplication
public class RetryApp {

    /** One call: listen or dlt, the value, the topic, when (nanoTime). */
    public record Call(String kind, String value, String topic, long nanos) {}

    @Component
    public static class Slow {
        public final Queue<Call> calls = new ConcurrentLinkedQueue<>();

        @RetryableTopic(
                attempts = "2",
                backOff = @BackOff(delayString = "${app.delay:4000}"),
                numPartitions = "2",
                exclude = IllegalArgumentException.class)
        @GroupKeeperListener(id = "${app.group}", topics = "${app.topic}")
        public void listen(String in, @Header(KafkaHeaders.RECEIVED_TOPIC) String topic) {
            calls.add(new Call("listen", in, topic, System.nanoTime()));
            if (in.startsWith("fail")) {
                throw new IllegalStateException("failed: " + in);
            }
            if (in.startsWith("bad")) { // excluded: not retried, to the DLT at once (Spring's classification)
                throw new IllegalArgumentException("bad: " + in);
            }
        }

        @DltHandler
        public void dlt(String in, @Header(KafkaHeaders.RECEIVED_TOPIC) String topic) {
            calls.add(new Call("dlt", in, topic, System.nanoTime()));
        }

        public long count(String kind, String value) {
            return calls.stream()
                    .filter(c -> c.kind().equals(kind) && c.value().equals(value))
                    .count();
        }

        public Call first(String kind, String value, int n) {
            return calls.stream()
                    .filter(c -> c.kind().equals(kind) && c.value().equals(value))
                    .skip(n)
                    .findFirst()
                    .orElseThrow();
        }
    }
}
