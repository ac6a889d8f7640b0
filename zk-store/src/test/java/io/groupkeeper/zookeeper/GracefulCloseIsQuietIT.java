package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.fixtures.TestNames;
import io.groupkeeper.fixtures.ZkLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A graceful shutdown is quiet: an operator reading the logs of a normal stop sees no WARN and no ERROR. The members of
 * a large group on one keeper (one session) close four at a time, as a service's workers stop, then the keeper. Each
 * member leaving the leader election deletes its latch node, which wakes its successor's check of its position while
 * that successor may be closing too, and the leader closes while it may be publishing.
 */
class GracefulCloseIsQuietIT extends ZkTestSupport {

    private static final int MEMBERS = 40;

    @Test
    void closingTheMembersOfALargeGroupOneAfterAnotherLogsNoWarningAndNoError() throws Exception {
        String group = newGroup();
        String topic = TestNames.unique("quiet");
        topic(topic, MEMBERS * 2);
        GroupKeeper keeper = newKeeper();
        List<GroupMember> members = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            GroupMember m = keeper.member(group).topics(topic).build();
            members.add(m);
            m.start();
        }
        awaitBalanced(Map.of(topic, MEMBERS * 2), members.toArray(GroupMember[]::new));

        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        Logger curator = (Logger) LoggerFactory.getLogger("org.apache.curator");
        Level curatorLevel = curator.getLevel();
        ListAppender<ILoggingEvent> captured = new ListAppender<>();
        captured.start();
        root.addAppender(captured);
        curator.setLevel(Level.WARN); // what a service logging at INFO would see of Curator
        try {
            ExecutorService closers = Executors.newFixedThreadPool(4);
            List<Future<?>> closes = new ArrayList<>();
            for (GroupMember m : members) {
                closes.add(closers.submit(m::close));
            }
            closers.shutdown();
            assertThat(closers.awaitTermination(60, TimeUnit.SECONDS))
                    .as("every member closed")
                    .isTrue();
            for (Future<?> close : closes) {
                close.get(); // a close that threw fails the test with its cause
            }
            assertThat(admin.getChildren().forPath(ZkLayout.group(group) + "/leader"))
                    .as("no latch node left behind by the closed members")
                    .isEmpty();
            keeper.close();
        } finally {
            curator.setLevel(curatorLevel);
            root.detachAppender(captured);
        }

        List<String> loud = captured.list.stream()
                .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .map(e -> e.getLevel() + " " + e.getLoggerName() + " - " + e.getFormattedMessage())
                .collect(Collectors.toList());
        assertThat(loud)
                .as("WARN and ERROR lines logged while the group closed")
                .isEmpty();
    }
}
