package io.groupkeeper.spring.retryack;

import io.groupkeeper.spring.GroupKeeperListener;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.kafka.annotation.RetryableTopic;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.stereotype.Component;

/**
 * A {@code @RetryableTopic} listener taking {@code Acknowledgment} (run with a manual ack mode), without a
 * {@code @DltHandler}: Spring's default DLT handler logs the dead letters and acknowledges them.
 */
@SpringBootApplication
public class ManualAckRetryApp {

    @Component
    public static class Acking {
        public final Queue<String> received = new ConcurrentLinkedQueue<>();

        @RetryableTopic(attempts = "2", exclude = IllegalArgumentException.class)
        @GroupKeeperListener(id = "${app.group}", topics = "${app.topic}")
        public void listen(String in, Acknowledgment ack) {
            received.add(in);
            if (in.startsWith("bad")) { // excluded: to the DLT at once
                throw new IllegalArgumentException("bad: " + in);
            }
            ack.acknowledge();
        }
    }
}
