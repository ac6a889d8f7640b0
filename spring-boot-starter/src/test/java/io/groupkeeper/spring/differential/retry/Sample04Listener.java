package io.groupkeeper.spring.differential.retry;

import java.util.Map;
import org.springframework.kafka.annotation.BackOff;
import org.springframework.kafka.annotation.DltHandler;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.RetryableTopic;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;

/**
 * Spring Kafka's sample-04 listener (spring-projects/spring-kafka samples/sample-04), written for Spring Kafka: the
 * differential test runs it as is, and with {@code @KafkaListener} swapped for {@code @GroupKeeperListener} by the test
 * ({@code AnnotationSwap}), never by hand. Its delays are shorter than
 * the sample's ({@code delay = 2_000, maxDelay = 10_000}) to keep the run short: 300, 600, 1000, 1000 ms — the last two
 * reuse one retry topic, as Spring's default {@code sameIntervalTopicReuseStrategy} does.
 */
public class Sample04Listener {

    private final Sample04.Body body;

    public Sample04Listener(Sample04.Body body) {
        this.body = body;
    }

    @RetryableTopic(attempts = "5", backOff = @BackOff(delay = 300, maxDelay = 1_000, multiplier = 2))
    @KafkaListener(id = "${app.group}", topics = "${app.topic}")
    public void listen(
            String in,
            @Header(KafkaHeaders.RECEIVED_TOPIC) String topic,
            @Header(KafkaHeaders.OFFSET) long offset,
            @Headers Map<String, Object> headers) {
        body.listen(in, topic, headers);
    }

    @DltHandler
    public void listenDlt(
            String in,
            @Header(KafkaHeaders.RECEIVED_TOPIC) String topic,
            @Header(KafkaHeaders.OFFSET) long offset,
            @Headers Map<String, Object> headers) {
        body.dlt(in, topic, headers);
    }
}
