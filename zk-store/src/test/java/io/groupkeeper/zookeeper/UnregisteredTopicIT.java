package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.fixtures.TestNames;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.zkprotocol.internal.ZkTopicRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A member of shards (no Kafka) on a topic nobody registered owns nothing: a WARN says why, once, and the topic's
 * registration later is taken up (issue 48: before, it owned nothing without a word).
 */
class UnregisteredTopicIT extends ZkTestSupport {

    @Test
    void aMemberOnATopicNobodyRegisteredIsWarnedOnceAndGetsItsPartitionsOnceItIsRegistered() {
        Logger logger = (Logger) LoggerFactory.getLogger(ZkTopicRegistry.class);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        logger.addAppender(log);
        try {
            String group = newGroup();
            String topic = TestNames.unique("typo");
            GroupKeeper gk = newKeeper();
            GroupMember m = gk.member(group).topics(topic).build();
            m.start();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !lines(log, Level.WARN).isEmpty());
            assertThat(lines(log, Level.WARN))
                    .containsExactly("topic " + topic + " is not registered ("
                            + ZkLayout.ROOT + "/topics/" + topic
                            + " does not exist): no partitions of it are assigned until it "
                            + "is (TopicRegistry.ensureTopic(\"" + topic
                            + "\", partitions)); the group's other topics are "
                            + "unaffected");
            assertThat(log.list.get(0).getMDCPropertyMap()).containsEntry("group", group);
            assertThat(m.assignment()).isEmpty();

            topic(topic, 2);
            await().atMost(Duration.ofSeconds(10)).until(() -> m.assignment().size() == 2);
            assertThat(lines(log, Level.INFO)).contains("topic " + topic + " is registered now, with 2 partitions");
            assertThat(lines(log, Level.WARN)).hasSize(1);
        } finally {
            logger.detachAppender(log);
        }
    }

    private static List<String> lines(ListAppender<ILoggingEvent> log, Level level) {
        synchronized (log) {
            return log.list.stream()
                    .filter(e -> e.getLevel() == level)
                    .map(ILoggingEvent::getFormattedMessage)
                    .toList();
        }
    }
}
