package io.groupkeeper.kafka.internal;

import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.ConnectionEvent;
import io.groupkeeper.spi.ConnectionListener;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.InterruptException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the member's lane meets the polling thread ({@code KafkaConsumer} is single-threaded). The lane's
 * {@link RebalanceListener} callbacks, the store's connection events and the user's {@code wakeup()} become
 * {@link Event}s on a queue, and wake the {@code KafkaConsumer}; the polling thread takes them at its next call.
 *
 * <p>A revocation also waits on the lane until the polling thread has served it — stopped fetching the partitions and
 * handed over their final positions — because the member <em>releases</em> the partitions (deletes its owner nodes in
 * the store, so the next owner may start) as soon as the callback returns (invariant I1). The wait ends early only
 * when the polling thread has {@linkplain #stopServing() stopped serving} (it has handed over everything itself, or
 * never will serve), and gives up after the revocation timeout. It does not end when the store connection drops: the
 * release would go through on reconnection (same session after a blip, or a new one that may delete the old one's
 * owner nodes at once) while the polling thread may still be processing a batch of those partitions.
 *
 * <p>"Released" is the member's word (ownership given up in the store); the polling thread's "I hand over nothing
 * more" is {@link #stopServing()}.
 */
final class LaneBridge implements RebalanceListener, ConnectionListener {

    // The adapter's one logger: users' logging configurations and the tests name it.
    private static final Logger LOG = LoggerFactory.getLogger(DefaultCoordinatedConsumer.class);
    private static final long REVOKE_CHECK_MS = 50;

    sealed interface Event permits Assigned, Revoked, Lost, OffsetsChanged, ConnectionDown, Nudge {}

    /**
     * {@code tokens}: each partition's fencing token when the member announced it (empty: not owned any more by then;
     * no entry: not known, as when no member is bound). The polling thread serves the assignment only for partitions
     * still owned under that token: one queued while the thread was busy may have been revoked (timed out) or lost,
     * and claimed by another owner, since.
     */
    record Assigned(SortedMap<TopicPartition, OptionalLong> partitions, Map<TopicPartition, OptionalLong> tokens)
            implements Event {}

    /** Served (completed) by the polling thread; the lane waits for that. */
    record Revoked(SortedSet<TopicPartition> partitions, CompletableFuture<Void> served) implements Event {}

    record Lost(SortedSet<TopicPartition> partitions) implements Event {}

    record OffsetsChanged(SortedSet<TopicPartition> partitions) implements Event {}

    record ConnectionDown() implements Event {}

    /** Wakes a polling thread that waits for events (nothing assigned) after the user's {@code wakeup()}. */
    record Nudge() implements Event {}

    private final LinkedBlockingDeque<Event> events = new LinkedBlockingDeque<>();
    private final String group;
    private final Supplier<String> memberId;
    private final Duration revocationTimeout;
    /** The member's fencing token of a partition (empty: not owned); null until a member is bound. */
    private volatile Function<TopicPartition, OptionalLong> tokens;
    /** Interrupts the polling thread's blocking {@code KafkaConsumer} call ({@code wakeup()}), once there is one. */
    private volatile Runnable wakeup = () -> {};
    /** False once the polling thread hands over nothing more: revocations need not wait, other events are dropped. */
    private volatile boolean serving = true;

    private volatile boolean connectionDown;

    /** The clock and waits of the lane's wait for the polling thread. */
    private final KafkaClients clients;

    LaneBridge(String group, Supplier<String> memberId, Duration revocationTimeout) {
        this(group, memberId, revocationTimeout, KafkaClients.REAL);
    }

    LaneBridge(String group, Supplier<String> memberId, Duration revocationTimeout, KafkaClients clients) {
        this.clients = clients;
        this.group = group;
        this.memberId = memberId;
        this.revocationTimeout = revocationTimeout;
    }

    /** How to wake the polling thread from a blocking call. */
    void wakeUpWith(Runnable wakeup) {
        this.wakeup = wakeup;
    }

    /** Where the member's fencing tokens are read: each assignment is stamped with them when it is queued. */
    void tokensFrom(Function<TopicPartition, OptionalLong> tokens) {
        this.tokens = tokens;
    }

    /** The member's fencing token of {@code tp} now; null when no member is bound (nothing to compare). */
    OptionalLong token(TopicPartition tp) {
        Function<TopicPartition, OptionalLong> t = tokens;
        return t == null ? null : t.apply(tp);
    }

    // ------------------------------------------------------------------ the member's lane

    @Override
    public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> partitions) {
        if (serving) {
            Map<TopicPartition, OptionalLong> issued = new HashMap<>();
            for (TopicPartition tp : partitions.keySet()) {
                OptionalLong t = token(tp); // (on the lane, right after the member announced the claim)
                if (t != null) {
                    issued.put(tp, t);
                }
            }
            enqueue(new Assigned(new TreeMap<>(partitions), issued));
        }
    }

    @Override
    public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
        if (!serving) {
            return; // the polling thread has committed and dropped everything (close), or never started
        }
        Revoked r = new Revoked(new TreeSet<>(partitions), new CompletableFuture<>());
        enqueue(r);
        awaitServed(r);
    }

    @Override
    public void onPartitionsLost(SortedSet<TopicPartition> partitions) {
        if (serving) {
            enqueue(new Lost(new TreeSet<>(partitions)));
        }
    }

    @Override
    public void onOffsetsChanged(SortedSet<TopicPartition> partitions) {
        if (serving) {
            enqueue(new OffsetsChanged(new TreeSet<>(partitions)));
        }
    }

    /** Waits until the polling thread served the revocation, within the revocation timeout. */
    private void awaitServed(Revoked r) {
        long deadline = clients.nanoTime() + revocationTimeout.toNanos();
        boolean warnedConnectionDown = false;
        while (true) {
            try {
                if (clients.await(r.served(), TimeUnit.MILLISECONDS.toNanos(REVOKE_CHECK_MS))) {
                    return;
                }
                // else check the exits below
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (!serving) {
                return;
            }
            if (connectionDown && !warnedConnectionDown) {
                // Keep waiting: the release that follows would go through on reconnection (same or new session)
                // while the polling thread may still be processing these partitions. It drops them at its next call.
                warnedConnectionDown = true;
                LOG.warn(
                        "store connection down while revoking {}; still waiting for the polling "
                                + "thread before releasing them",
                        r.partitions());
            }
            if (clients.nanoTime() - deadline > 0) {
                LOG.warn(
                        "revocation of {} waited {} ms for the polling thread (no poll() or "
                                + "commitSync() in that time); releasing without a final commit: the next owner repeats "
                                + "from the last committed offsets",
                        r.partitions(),
                        revocationTimeout.toMillis());
                return;
            }
        }
    }

    // ------------------------------------------------------------------ the store's event thread (never blocks)

    @Override
    public void stateChanged(ConnectionEvent event) {
        switch (event) {
            case SUSPENDED, LOST -> {
                connectionDown = true;
                enqueue(new ConnectionDown());
            }
            case RECONNECTED, RECONNECTED_NEW_SESSION, CONNECTED -> connectionDown = false;
        }
    }

    /** The store reports its connection down (commits would be refused). */
    boolean connectionDown() {
        return connectionDown;
    }

    // ------------------------------------------------------------------ any thread

    /** Wakes the polling thread, also one that waits for events with nothing assigned (the user's wakeup()). */
    void nudge() {
        enqueue(new Nudge());
    }

    private void enqueue(Event e) {
        events.add(e);
        wakeup.run();
    }

    // ------------------------------------------------------------------ the polling thread

    /** The next event, or null. */
    Event next() {
        return events.poll();
    }

    /** Waits up to {@code nanos} for an event (and leaves it queued). */
    void awaitEvent(long nanos) {
        try {
            Event e = clients.poll(events, nanos); // the deque's pollFirst, on the clients' clock
            if (e != null) {
                events.addFirst(e);
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new InterruptException(ie);
        }
    }

    /**
     * The polling thread hands over nothing more (it has committed and dropped everything, or never reached user
     * code): revocations return at once — also those waiting now — and other events are dropped. Idempotent.
     */
    void stopServing() {
        serving = false;
        for (Event e; (e = events.poll()) != null; ) {
            if (e instanceof Revoked r) {
                r.served().complete(null);
            }
        }
    }
}
