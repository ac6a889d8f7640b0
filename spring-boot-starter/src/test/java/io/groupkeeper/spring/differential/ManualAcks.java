package io.groupkeeper.spring.differential;

import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A Boot 4 application with {@code spring.kafka.listener.ack-mode} manual: its listener ({@link #LISTENER}, compiled
 * as it is and with the annotation swapped by the differential test) acknowledges the records named {@code ack-*},
 * skips those named {@code skip-*}, and nacks a {@code nack-*} record once (200 ms), acknowledging it the second time.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class ManualAcks {

    public static final String LISTENER = """
            package manualacks;

            import io.groupkeeper.spring.differential.ManualAcks.Observed;
            import java.time.Duration;
            import org.springframework.beans.factory.annotation.Autowired;
            import org.springframework.kafka.annotation.KafkaListener;
            import org.springframework.kafka.support.Acknowledgment;
            import org.springframework.stereotype.Component;

            @Component
            public class Listener {

                @Autowired
                private Observed observed;

                @KafkaListener(id = "${app.group}", topics = "${app.topic}")
                public void listen(String value, Acknowledgment ack) {
                    observed.received.add(value);
                    if (value.startsWith("nack") && observed.nacked.add(value)) {
                        ack.nack(Duration.ofMillis(200));
                    } else if (!value.startsWith("skip")) {
                        ack.acknowledge();
                    }
                }
            }
            """;

    @Bean
    Observed observed() {
        return new Observed();
    }

    /** What the listener received, in order, and what it nacked. */
    public static class Observed {
        public final Queue<String> received = new ConcurrentLinkedQueue<>();
        public final Set<String> nacked = ConcurrentHashMap.newKeySet();
    }
}
