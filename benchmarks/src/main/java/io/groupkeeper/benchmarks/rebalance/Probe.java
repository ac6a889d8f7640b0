package io.groupkeeper.benchmarks.rebalance;

import io.groupkeeper.benchmarks.support.Jit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Measures one rebalance: from the event instant {@code T} until every partition is owned by exactly one live
 * member and, for subjects that consume records, that member has delivered a record of it after the event and after
 * it last gained it ("owned and fetched", issue 7 item 2).
 *
 * <p>Per partition the probe keeps the owner (from the members' own callbacks), the instant the owner gained it
 * ({@code ownedAt}) and the instant of the owner's first delivery since then and since {@code T}
 * ({@code fetchedAt}). A partition that did not change hands after {@code T} counts as owned at {@code T}; for
 * record-consuming subjects it still needs a delivery after {@code T}. The rebalance is done at
 * {@code max(fetchedAt)} (or {@code max(ownedAt)} for ownership-only subjects), once every partition is owned,
 * the live members' counts differ by at most one, and nothing changed for a short guard period.
 *
 * <p>Checks on the way: a delivery by a member that does not own the partition by its own callbacks, and a gain of
 * a partition another live member still holds, are counted as {@code overlaps} (must be 0). A member that is not
 * live after the event (it is leaving) keeps its partitions until its revocation callback; a member declared dead
 * ({@link #kill}, a crash) is ignored from then on and its partitions count as unowned from the event.
 */
public final class Probe {

    private final int partitions;
    private final String[] owner;
    private final long[] ownedAt;
    private final long[] fetchedAt;
    private final Map<String, Integer> counts = new HashMap<>();
    private final Set<String> live = new HashSet<>();
    private final Set<String> dead = new HashSet<>();
    private boolean consumesRecords;
    private long eventAt;
    private long lastChangeAt;
    /** The process's CPU time at the event and at the last change (for a finished rebalance: its end). */
    private long cpuAtEvent;

    private long cpuAtLastChange;
    private int overlaps;
    private int foreignDeliveries;
    private int doubleGains;
    private final List<String> violations = new ArrayList<>();
    private int gainsSinceEvent;

    public Probe(int partitions) {
        this.partitions = partitions;
        this.owner = new String[partitions];
        this.ownedAt = new long[partitions];
        this.fetchedAt = new long[partitions];
    }

    /** Starts a measurement at {@code eventAt} with these live members (those that should own partitions at the end). */
    public synchronized void arm(long eventAt, Collection<String> liveMembers, boolean consumesRecords) {
        this.eventAt = eventAt;
        this.consumesRecords = consumesRecords;
        this.lastChangeAt = eventAt;
        this.cpuAtEvent = Jit.processCpuNanos();
        this.cpuAtLastChange = cpuAtEvent;
        this.gainsSinceEvent = 0;
        live.clear();
        live.addAll(liveMembers);
        for (int p = 0; p < partitions; p++) {
            // A member leaving gracefully keeps what it owns until its own revocation callback says otherwise (it may
            // still deliver records it polled): done() only counts partitions whose owner is live.
            ownedAt[p] = eventAt;
            fetchedAt[p] = 0;
        }
        notifyAll();
    }

    /** The member is gone (crashed or left) from now on; its callbacks and deliveries are ignored. */
    public synchronized void kill(String member) {
        dead.add(member);
        live.remove(member);
        for (int p = 0; p < partitions; p++) {
            if (member.equals(owner[p])) {
                drop(p);
            }
        }
        notifyAll();
    }

    private void drop(int p) {
        counts.merge(owner[p], -1, Integer::sum);
        owner[p] = null;
        fetchedAt[p] = 0;
        changed(System.nanoTime());
    }

    private void changed(long at) {
        lastChangeAt = at;
        cpuAtLastChange = Jit.processCpuNanos();
    }

    public synchronized void assigned(String member, Collection<Integer> gained) {
        long now = System.nanoTime();
        if (dead.contains(member)) {
            return;
        }
        for (int p : gained) {
            if (owner[p] != null && !owner[p].equals(member)) {
                overlaps++;
                doubleGains++;
                note("partition " + p + " gained by " + member + " while " + owner[p] + " still held it", now);
                counts.merge(owner[p], -1, Integer::sum);
            } else if (member.equals(owner[p])) {
                counts.merge(member, -1, Integer::sum); // re-assigned to the same member: re-counted below
            }
            owner[p] = member;
            counts.merge(member, 1, Integer::sum);
            ownedAt[p] = Math.max(now, eventAt);
            fetchedAt[p] = 0;
            gainsSinceEvent++;
            changed(now);
        }
        notifyAll();
    }

    public synchronized void revoked(String member, Collection<Integer> gone) {
        if (dead.contains(member)) {
            return;
        }
        for (int p : gone) {
            if (member.equals(owner[p])) {
                drop(p);
            }
        }
        notifyAll();
    }

    public synchronized void delivered(String member, int p, long at) {
        if (dead.contains(member) || at < eventAt) {
            return;
        }
        if (!member.equals(owner[p])) {
            overlaps++;
            foreignDeliveries++;
            note(
                    "partition " + p + " delivered to " + member + " while " + (owner[p] == null ? "nobody" : owner[p])
                            + " owned it by the callbacks",
                    at);
            return;
        }
        if (fetchedAt[p] == 0) {
            fetchedAt[p] = at;
            changed(at);
            notifyAll();
        }
    }

    /** Whether the state is the finished state (see class comment), ignoring the guard period. */
    public synchronized boolean done() {
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (String m : live) {
            int c = counts.getOrDefault(m, 0);
            min = Math.min(min, c);
            max = Math.max(max, c);
        }
        if (live.isEmpty() || max - min > 1) {
            return false;
        }
        for (int p = 0; p < partitions; p++) {
            if (owner[p] == null || !live.contains(owner[p])) {
                return false;
            }
            if (consumesRecords && fetchedAt[p] == 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * One measured rebalance; times in ms from the event. {@code cpuMs}: the CPU time the whole JVM used from the event
     * until the last change (NaN where the JVM does not say).
     */
    public record Sample(double totalMs, double ownedMs, double fetchMs, int gains, int overlaps, double cpuMs) {}

    /**
     * Waits until {@link #done()} has held for {@code guardMs} without any change; returns the sample, or null on
     * timeout.
     */
    public synchronized Sample await(long guardMs, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (true) {
            long now = System.nanoTime();
            if (now > deadline) {
                return null;
            }
            if (done() && now - lastChangeAt >= guardMs * 1_000_000L) {
                long owned = eventAt;
                long fetched = eventAt;
                for (int p = 0; p < partitions; p++) {
                    owned = Math.max(owned, ownedAt[p]);
                    fetched = Math.max(fetched, consumesRecords ? fetchedAt[p] : ownedAt[p]);
                }
                double totalMs = (fetched - eventAt) / 1e6;
                double ownedMs = (owned - eventAt) / 1e6;
                double cpuMs =
                        cpuAtEvent < 0 || cpuAtLastChange < 0 ? Double.NaN : (cpuAtLastChange - cpuAtEvent) / 1e6;
                return new Sample(totalMs, ownedMs, totalMs - ownedMs, gainsSinceEvent, overlaps, cpuMs);
            }
            wait(Math.max(1, Math.min(20, (deadline - now) / 1_000_000L)));
        }
    }

    private void note(String what, long at) {
        if (violations.size() < 20) {
            violations.add(String.format(Locale.ROOT, "%+.1f ms after the event: %s", (at - eventAt) / 1e6, what));
        }
    }

    /** Overlaps of each kind, and the first few in words. */
    public synchronized Map<String, Object> overlapReport() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("deliveriesToNonOwner", foreignDeliveries);
        m.put("gainsWhileHeldByAnother", doubleGains);
        m.put("first", List.copyOf(violations));
        return m;
    }

    public synchronized String describe() {
        return "owners " + Arrays.toString(owner) + " fetched "
                + Arrays.stream(fetchedAt).filter(f -> f > 0).count() + "/" + partitions + " live " + live
                + " overlaps " + overlaps;
    }

    public synchronized int overlaps() {
        return overlaps;
    }
}
