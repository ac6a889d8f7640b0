package io.groupkeeper.testkit.sim;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What happened in one schedule, for a failure report: the last events (bounded), and a running hash of all of them
 * so that two runs of one seed can be compared exactly.
 */
final class SimLog {

    private static final int KEEP = Integer.getInteger("groupkeeper.simulation.trace", 120);

    private final SimScheduler scheduler;
    private final Deque<String> last = new ArrayDeque<>();
    private long hash = 17;

    SimLog(SimScheduler scheduler) {
        this.scheduler = scheduler;
    }

    void event(String what) {
        record(what, true);
    }

    /** An event that counts for the hash but would crowd the report (a commit every few polls). */
    void routine(String what) {
        record(what, false);
    }

    private void record(String what, boolean keep) {
        String line = scheduler.now().toEpochMilli() % 1_000_000 + " " + what;
        hash = hash * 31 + line.hashCode();
        if (!keep) {
            return;
        }
        last.addLast(line);
        if (last.size() > KEEP) {
            last.removeFirst();
        }
    }

    long hash() {
        return hash;
    }

    String tail() {
        return String.join("\n", last);
    }
}
