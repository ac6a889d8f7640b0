package io.groupkeeper.internal;

import io.groupkeeper.log.internal.LogContext;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs submitted tasks one at a time, in submission order, on a shared executor: a lane. Lanes give each member
 * single-threaded protocol logic without a thread per member. Every task runs in its member's logging context (the MDC
 * keys {@code group} and {@code member}, {@link LogContext}): that is how log lines name their member.
 */
final class SerialExecutor implements Executor {

    private static final Logger LOG = LoggerFactory.getLogger(SerialExecutor.class);

    private final Executor delegate;
    private final String name;
    private final LogContext log;
    private final Queue<Runnable> tasks = new ArrayDeque<>();
    // Both guarded by tasks: the lane's thread is set and cleared with the lane taken and released, so a runIfIdle
    // that takes the lane the moment a drain lets it go cannot have its thread cleared by that drain.
    private boolean running;
    private volatile Thread current;

    SerialExecutor(Executor delegate, String lane, LogContext log) {
        this.delegate = delegate;
        this.name = lane + " " + log.member();
        this.log = log;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (tasks) {
            tasks.add(task);
            if (running) {
                return;
            }
            running = true;
        }
        handOver();
    }

    /**
     * Runs {@code task} on the calling thread, as this lane, if the lane is idle (nothing running or queued); tasks
     * submitted meanwhile run after it, on the shared executor. Returns false, having run nothing, if the lane was
     * busy. For a caller that would only wait for the task anyway: it saves two thread hand-overs.
     */
    boolean runIfIdle(Runnable task) {
        synchronized (tasks) {
            if (running) {
                return false;
            }
            running = true;
            current = Thread.currentThread();
        }
        try {
            log.withMdc(task);
        } finally {
            boolean more;
            synchronized (tasks) {
                current = null;
                more = !tasks.isEmpty();
                running = more;
            }
            if (more) {
                handOver();
            }
        }
        return true;
    }

    private void handOver() {
        try {
            delegate.execute(this::drain);
        } catch (RuntimeException e) {
            synchronized (tasks) {
                running = false;
                tasks.clear();
            }
            LOG.debug("lane {} rejected a task (executor shut down?)", name, e);
        }
    }

    /** Whether the calling thread is this lane's current thread. */
    boolean inLane() {
        return current == Thread.currentThread();
    }

    private void drain() {
        Thread me = Thread.currentThread();
        String oldName = me.getName();
        try {
            while (true) {
                Runnable task;
                synchronized (tasks) {
                    task = tasks.poll();
                    if (task == null) {
                        current = null;
                        running = false;
                        return;
                    }
                    current = me;
                }
                try {
                    log.withMdc(task);
                } catch (RuntimeException | Error e) {
                    // An Error that ended the drain would leave the lane taken and every later task queued forever.
                    LOG.error("uncaught failure in lane {}", name, e);
                }
            }
        } finally {
            synchronized (tasks) {
                if (current == me) { // the drain itself failed: the lane stays taken, but this thread leaves it
                    current = null;
                }
            }
            me.setName(oldName);
        }
    }
}
