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
 * A sample-04-style listener whose retry topics are not created by Spring ({@code autoCreateTopics = "false"}: no
 * {@code NewTopic} beans), written for Spring Kafka; the differential test swaps its {@code @KafkaListener} for
 * {@code @GroupKeeperListener} ({@code AnnotationSwap}). A fixed delay: one retry topic, {@code <topic>-retry}, and
 * {@code <topic>-dlt}.
 */
public class NoAutoCreateListener {

    private final Sample04.Body body;

    public NoAutoCreateListener(Sample04.Body body) {
        this.body = body;
    }

    @RetryableTopic(attempts = "3", autoCreateTopics = "false", backOff = @BackOff(delay = 200))
    @KafkaListener(id = "${app.group}", topics = "${app.topic}")
    public void listen(
            String in, @Header(KafkaHeaders.RECEIVED_TOPIC) String topic, @Headers Map<String, Object> headers) {
        body.listen(in, topic, headers);
    }

    @DltHandler
    public void listenDlt(
            String in, @Header(KafkaHeaders.RECEIVED_TOPIC) String topic, @Headers Map<String, Object> headers) {
        body.dlt(in, topic, headers);
    }
}
