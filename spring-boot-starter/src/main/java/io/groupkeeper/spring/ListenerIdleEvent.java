package io.groupkeeper.spring;

import java.time.Duration;
import org.springframework.context.ApplicationEvent;

/**
 * Published when a consumer of a {@link GroupKeeperListener} has fetched nothing for its idle event interval
 * ({@code idleEventInterval}, {@code groupkeeper.listener.idle-event-interval}), and again every interval while it
 * stays quiet (Spring Kafka's {@code ListenerContainerIdleEvent}). Published on the consumer's thread: an
 * {@code @EventListener} runs there, and should be quick. The source is the listener's container.
 */
public class ListenerIdleEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    private final String listenerId;
    private final String group;
    private final String member;
    private final Duration idleFor;

    public ListenerIdleEvent(Object container, String listenerId, String group, String member, Duration idleFor) {
        super(container);
        this.listenerId = listenerId;
        this.group = group;
        this.member = member;
        this.idleFor = idleFor;
    }

    /** The listener's id ({@code @GroupKeeperListener(id)}, default the group). */
    public String getListenerId() {
        return listenerId;
    }

    public String getGroup() {
        return group;
    }

    /** The member (consumer) that is idle. */
    public String getMember() {
        return member;
    }

    /** How long it has fetched nothing. */
    public Duration getIdleFor() {
        return idleFor;
    }

    @Override
    public String toString() {
        return "ListenerIdleEvent[listener=" + listenerId + ", group=" + group + ", member=" + member + ", idleFor="
                + idleFor + "]";
    }
}
