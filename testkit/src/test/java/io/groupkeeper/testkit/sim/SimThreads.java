package io.groupkeeper.testkit.sim;

import io.groupkeeper.testkit.SimulatedThreads;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Real threads ("carriers") for the simulated threads whose requests may hang (a process under a silent cut): a
 * task of such a thread runs on a carrier while the scheduler's thread waits for it, and a request that hangs parks
 * its carrier and hands control back, so the scheduler runs the rest of the world (that process's other threads
 * included) until the answer comes; then a task of the hanging thread's tag hands the carrier control again. Exactly
 * one thread runs at any time (a baton passed through semaphores), so a run stays a pure function of its seed.
 *
 * <p>Mutual exclusion: a carrier may hang while it holds a lock (a monitor or a {@code java.util.concurrent} lock).
 * The others run on; if one of them then blocks on that lock (a real block, which the baton cannot account for: the
 * lock's release would wake it in the middle of someone else's turn), the world is given up ({@link Contended}) and
 * the schedule is run again from its start, identical up to that hang, which this time holds its process's other
 * tasks until it has its answer ({@link Hold}; except its store's events when the answer comes through them). A
 * carrier that blocks on anything else (a lock or a future that no simulated thread will release) fails the run with
 * its stack after {@link #STUCK_MILLIS} of wall time; one that waits with a timeout (a {@code tryLock}) returns.
 */
final class SimThreads implements SimulatedThreads {

    /** How long (wall clock) a carrier may be blocked outside a held request before the run fails. */
    static final long STUCK_MILLIS = 5_000;

    /** Thrown in a parked carrier whose world is gone (its process crashed, or the run ended): it unwinds. */
    static final class Abandoned extends Error {
        private static final long serialVersionUID = 1L;

        Abandoned() {
            super("simulated thread abandoned", null, false, false);
        }
    }

    /**
     * A carrier blocked on a lock that the {@code hang}th hanging carrier holds: the schedule must run again with that
     * hang exclusive ({@link #exclusiveHangs}).
     */
    static final class Contended extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final long hang;

        Contended(long hang) {
            super("a simulated thread blocked on a lock that hang " + hang + " holds", null, false, false);
            this.hang = hang;
        }
    }

    /** A real thread that carries simulated threads' tasks, one at a time. */
    static final class Carrier {
        private final Thread thread;
        private final Semaphore go = new Semaphore(0);
        private final Semaphore back = new Semaphore(0);
        private Runnable work;
        /** The tag of the task it carries. */
        String tag;

        private boolean abandoned;
        private Throwable failure;
        /** While it hangs: the number of its hang (a lock another carrier blocks on is looked for among these). */
        private long lockedIn = -1;

        private Carrier(SimThreads owner, int n) {
            thread = new Thread(() -> owner.loop(this), "sim-carrier-" + n);
            thread.setDaemon(true);
            thread.start();
        }
    }

    private static final ThreadLocal<Carrier> CURRENT = new ThreadLocal<>();

    private final ArrayDeque<Carrier> idle = new ArrayDeque<>();
    private final List<Carrier> all = new ArrayList<>();
    /** The hangs (numbered from 0 in the order they happen) that hold their process's other tasks. */
    private final java.util.Set<Long> exclusiveHangs = new java.util.HashSet<>();

    private final List<Carrier> parked = new ArrayList<>();
    /** Queues a task of {@code tag} that hands the carrier control again ({@link #handTo}). */
    private final BiConsumer<String, Carrier> resume;
    /** Holds (a hold) or releases (null) the other tasks of the tag's process. */
    private final BiConsumer<String, Hold> exclusive;

    private int made;
    private long heldWithLocks;
    private long hangs;
    /** Whether a held write lost at the cut's notice landed all the same ({@link #landsAnyway}); null: never. */
    private java.util.Random lands;

    /**
     * A carrier hanging with a lock held: its process's other tasks wait, except (when its answer comes through the
     * client's event executor) the store's events.
     */
    record Hold(Carrier carrier, boolean viaEvents) {}

    SimThreads(BiConsumer<String, Carrier> resume, BiConsumer<String, Hold> exclusive) {
        this.resume = resume;
        this.exclusive = exclusive;
    }

    /** Hangs that hold their process's other tasks: those a former run of the schedule found contended. */
    void exclusiveHangs(java.util.Set<Long> hangs) {
        exclusiveHangs.addAll(hangs);
    }

    /** Runs a task of {@code tag} on a carrier until it ends or hangs (scheduler's thread). */
    void run(String tag, Runnable task) {
        Carrier c;
        if (idle.isEmpty()) {
            c = new Carrier(this, ++made);
            all.add(c);
        } else {
            c = idle.pop();
        }
        c.tag = tag;
        c.work = task;
        handTo(c);
    }

    /** Hands {@code c} control until its task ends or hangs again (scheduler's thread). */
    void handTo(Carrier c) {
        parked.remove(c);
        c.lockedIn = -1;
        exclusive.accept(c.tag, null);
        c.go.release();
        long stuckSince = 0;
        while (!acquire(c.back)) {
            Thread.State state = c.thread.getState();
            if (state != Thread.State.BLOCKED && state != Thread.State.WAITING) {
                stuckSince = 0;
                continue;
            }
            long owner = lockOwner(c.thread);
            // A snapshot: a carrier seen waiting only for a moment (a lock handed over, under load) may go on and park
            // itself while this looks (a ConcurrentModificationException, seen with the listener container's threads).
            for (Carrier p : parked.toArray(new Carrier[0])) {
                if (p.lockedIn >= 0 && p.thread.getId() == owner) {
                    throw new Contended(p.lockedIn);
                }
            }
            if (stuckSince == 0) {
                stuckSince = System.nanoTime();
            } else if (System.nanoTime() - stuckSince > TimeUnit.MILLISECONDS.toNanos(STUCK_MILLIS)) {
                throw new IllegalStateException("a simulated thread of " + c.tag + " is blocked outside a request a "
                        + "silent cut holds (on a lock or a future that no simulated thread will release):\n\t"
                        + Arrays.stream(c.thread.getStackTrace())
                                .limit(40)
                                .map(String::valueOf)
                                .collect(Collectors.joining("\n\t")));
            }
        }
        Throwable failed = c.failure;
        c.failure = null;
        if (failed instanceof RuntimeException re) {
            throw re;
        }
        if (failed instanceof Error e) {
            throw e;
        }
    }

    private static boolean acquire(Semaphore s) {
        try {
            return s.tryAcquire(5, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while a simulated thread ran", e);
        }
    }

    private void loop(Carrier c) {
        CURRENT.set(c);
        while (true) {
            c.go.acquireUninterruptibly();
            Runnable task = c.work;
            c.work = null;
            if (task == null) {
                return; // closed
            }
            try {
                task.run();
            } catch (Abandoned gone) {
                // its world is gone
            } catch (Throwable t) {
                c.failure = t;
            }
            if (c.abandoned) {
                c.back.release();
                return; // its world is gone
            }
            idle.push(c);
            c.back.release();
        }
    }

    @Override
    public boolean canWait() {
        Carrier c = CURRENT.get();
        return c != null && !c.abandoned;
    }

    /** Parks the calling carrier until {@code answer} is complete; the scheduler runs the rest meanwhile. */
    @Override
    public void await(CompletableFuture<?> answer, boolean viaEvents) {
        Carrier c = CURRENT.get();
        if (c == null || c.abandoned) {
            throw new Abandoned();
        }
        if (answer.isDone()) {
            return;
        }
        long hang = hangs++;
        // Whether it holds locks is asked only where the answer decides something: a thread dump of one thread is a
        // safepoint operation (tens of ms on a loaded machine; most of an adapter schedule's wall time when asked at
        // every hang). Marking a carrier without locks as hanging in this hang changes nothing: only a carrier that
        // owns the lock another one blocks on is ever matched ({@link #handTo}).
        if (exclusiveHangs.contains(hang)) {
            if (holdsLocks()) {
                heldWithLocks++;
                exclusive.accept(c.tag, new Hold(c, viaEvents));
            }
        } else {
            c.lockedIn = hang;
        }
        String tag = c.tag;
        parked.add(c);
        answer.whenComplete((v, e) -> resume.accept(tag, c));
        c.back.release();
        c.go.acquireUninterruptibly();
        if (c.abandoned) {
            throw new Abandoned();
        }
    }

    /** Decides by {@code random} whether a write a noticed cut failed landed all the same (one in two). */
    void lands(java.util.Random random) {
        this.lands = random;
    }

    @Override
    public boolean landsAnyway() {
        return lands != null && lands.nextBoolean();
    }

    /** How many times a simulated thread hung in a request. */
    long hangs() {
        return hangs;
    }

    /** The thread that owns the lock {@code t} is blocked on (-1: none, or not a lock). */
    private static long lockOwner(Thread t) {
        try {
            Object info = threadInfo(t.getId(), false);
            return info == null
                    ? -1
                    : (long) Class.forName("java.lang.management.ThreadInfo")
                            .getMethod("getLockOwnerId")
                            .invoke(info);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot tell who holds the lock a simulated thread waits for", e);
        }
    }

    /** {@code ThreadMXBean.getThreadInfo} of one thread, reached reflectively (see {@link #holdsLocks}). */
    private static Object threadInfo(long id, boolean locks) throws ReflectiveOperationException {
        Class<?> factory = Class.forName("java.lang.management.ManagementFactory");
        Class<?> bean = Class.forName("java.lang.management.ThreadMXBean");
        Object mx = factory.getMethod("getThreadMXBean").invoke(null);
        return ((Object[]) bean.getMethod("getThreadInfo", long[].class, boolean.class, boolean.class)
                        .invoke(mx, new long[] {id}, locks, locks))
                [0];
    }

    /** How many exclusive hangs held a lock (their process's other threads waited meanwhile). */
    long heldWithLocks() {
        return heldWithLocks;
    }

    /**
     * Whether the calling thread holds a monitor or an ownable lock: {@code ThreadMXBean}'s answer, reached reflectively
     * (the testkit module does not read {@code java.management}; reflection needs no readability).
     */
    private static boolean holdsLocks() {
        try {
            Class<?> info = Class.forName("java.lang.management.ThreadInfo");
            Object mine = threadInfo(Thread.currentThread().getId(), true);
            return ((Object[]) info.getMethod("getLockedMonitors").invoke(mine)).length > 0
                    || ((Object[]) info.getMethod("getLockedSynchronizers").invoke(mine)).length > 0;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot tell which locks a simulated thread holds", e);
        }
    }

    /** Unwinds the parked carriers of the tags {@code gone} matches (a process that died). */
    void abandon(Predicate<String> gone) {
        for (Carrier c : List.copyOf(parked)) {
            if (gone.test(c.tag)) {
                c.abandoned = true;
                try {
                    handTo(c);
                } catch (RuntimeException | Error unwound) {
                    // whatever the unwinding threw: its world is gone
                }
            }
        }
    }

    /** Ends every carrier: the parked ones unwind, the idle ones stop, one blocked on a lock ends once it has it. */
    void close() {
        all.forEach(c -> c.abandoned = true);
        abandon(tag -> true);
        for (Carrier c : idle) {
            c.work = null;
            c.go.release();
        }
        idle.clear();
    }
}
