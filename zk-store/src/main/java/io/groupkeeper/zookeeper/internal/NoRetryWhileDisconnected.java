package io.groupkeeper.zookeeper.internal;

import java.util.function.BooleanSupplier;
import org.apache.curator.RetryPolicy;
import org.apache.curator.RetrySleeper;
import org.apache.zookeeper.KeeperException;

/**
 * The configured retry policy, except that an operation that failed while the client is not connected is not
 * retried: it fails at once. Curator would otherwise wait for a connection before every retry (up to the connection
 * timeout each), so a commit in flight when the connection drops would hold its caller — a polling thread — for tens
 * of seconds, past the session timeout, and the loss notice with it (I7). Every caller retries at its own level: the
 * member's lane with backoff, the Kafka adapter at its next commit interval.
 *
 * <p>Both the failure itself (a lost connection or session) and the client's state are checked: an operation in
 * flight learns of the loss before the client's state says so (the ZooKeeper client fails pending requests first,
 * then queues the Disconnected event).
 */
public final class NoRetryWhileDisconnected implements RetryPolicy {

    private final RetryPolicy delegate;
    private volatile BooleanSupplier connected = () -> true;

    public NoRetryWhileDisconnected(RetryPolicy delegate) {
        this.delegate = delegate;
    }

    /** Binds the connection check (the client exists only after its builder took this policy). */
    public void connectedWhen(BooleanSupplier connected) {
        this.connected = connected;
    }

    @Override
    public boolean allowRetry(int retryCount, long elapsedTimeMs, RetrySleeper sleeper) {
        return connected.getAsBoolean() && delegate.allowRetry(retryCount, elapsedTimeMs, sleeper);
    }

    @Override
    public boolean allowRetry(Throwable exception) {
        if (exception instanceof KeeperException.ConnectionLossException
                || exception instanceof KeeperException.SessionExpiredException) {
            return false;
        }
        return delegate.allowRetry(exception);
    }
}
