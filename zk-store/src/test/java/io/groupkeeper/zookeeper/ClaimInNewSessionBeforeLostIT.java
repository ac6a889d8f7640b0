package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.ConnectionEvent;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * On a real server: the client is already connected in a new session when the member hears LOST (Curator replaces an
 * expired session on its own and tells the listeners on another thread), and the member's lane claimed a partition in
 * that new session meanwhile. A close that hears LOST must release that claim: its owner node does not go with the
 * session given up, and would stay as long as the keeper's new session (the next member waits for it for ever).
 */
class ClaimInNewSessionBeforeLostIT extends ZkTestSupport {

    @Test
    void aCloseThatHearsLostReleasesWhatItClaimedInTheNewSession() throws Exception {
        String group = newGroup();
        topic("renewed", 1);
        TopicPartition tp = new TopicPartition("renewed", 0);
        InterposedStore deaf = InterposedStore.deaf(newStore());
        GroupKeeper keeper = GroupKeeper.builder().store(deaf).build().start();
        toClose.add(keeper);
        GroupMember m = keeper.member(group).topics("renewed").build();
        m.start();
        awaitBalanced(Map.of("renewed", 1), m);
        long first = deaf.sessionId();

        // The server ends the session; the client is connected in a new one before the member hears of it.
        expireSession(deaf.delegate());
        await().atMost(Duration.ofSeconds(20)).until(() -> deaf.isConnected() && deaf.sessionId() != first);
        await().atMost(Duration.ofSeconds(10)).until(() -> ownersInZk(group).isEmpty());
        // A step of the member's lane claims the partition again, in the new session.
        deaf.fire(ConnectionEvent.SUSPENDED);
        deaf.fire(ConnectionEvent.RECONNECTED);
        await().atMost(Duration.ofSeconds(10)).until(() -> ownersInZk(group).containsKey(tp));

        Logger leaveLog = (Logger) LoggerFactory.getLogger("io.groupkeeper.internal.MemberLeave");
        ListAppender<ILoggingEvent> heard = new ListAppender<>();
        heard.start();
        leaveLog.addAppender(heard);
        try {
            deaf.fire(ConnectionEvent.SUSPENDED);
            CompletableFuture<Void> closed = m.closeAsync();
            deaf.fire(ConnectionEvent.LOST);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> heard.list.stream()
                            .anyMatch(e -> e.getFormattedMessage().startsWith("session given up")));
            deaf.fire(ConnectionEvent.RECONNECTED_NEW_SESSION);
            closed.get(30, TimeUnit.SECONDS);
        } finally {
            leaveLog.detachAppender(heard);
        }

        assertThat(ownersInZk(group)).as("no ghost owner node").isEmpty();
    }
}
