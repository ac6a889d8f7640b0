package io.groupkeeper.benchmarks.rebalance;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A logback appender on Kafka's group coordinator ({@code GroupMetadataManager}, see logback.xml) that notes the
 * instant the broker expires a member's session, by group: for the classic protocol the line
 * {@code "Member {} in group {} has failed, removing it from the group."}, for the consumer protocol (KIP-848)
 * {@code "[GroupId {}] Member {} fenced from the group because the member session expired."}. That is the broker's
 * own session-expiry detection, the start of scenario (c). Kafka 4.4 wording; if it changes, the harness falls
 * back to {@code crash + session timeout} and says so. Lines at WARN and above are printed to stderr.
 */
public final class KafkaExpiryLog extends AppenderBase<ILoggingEvent> {

    private static final Pattern CLASSIC =
            Pattern.compile("Member (\\S+) in group (\\S+) has failed, removing it from the group");
    private static final Pattern CONSUMER = Pattern.compile(
            "\\[GroupId (\\S+)\\] Member (\\S+) fenced from the group because the member session expired");

    /** group id -> nanoTime of the first expiry seen since {@link #clear}. */
    private static final Map<String, Long> EXPIRED = new ConcurrentHashMap<>();

    @Override
    protected void append(ILoggingEvent event) {
        long now = System.nanoTime();
        String msg = event.getFormattedMessage();
        Matcher c = CLASSIC.matcher(msg);
        if (c.find()) {
            EXPIRED.putIfAbsent(c.group(2), now);
        } else {
            Matcher k = CONSUMER.matcher(msg);
            if (k.find()) {
                EXPIRED.putIfAbsent(k.group(1), now);
            }
        }
        if (event.getLevel().isGreaterOrEqual(Level.WARN)) {
            System.err.println(event.getLevel() + " " + event.getLoggerName() + " - " + msg);
        }
    }

    public static void clear(String group) {
        EXPIRED.remove(group);
    }

    /** The nanoTime at which the broker expired a member of {@code group}, or 0. */
    public static long expiredAt(String group) {
        return EXPIRED.getOrDefault(group, 0L);
    }
}
