package io.groupkeeper.chaos;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Everything a chaos run observed, appended concurrently by consumers, the fault injector and the offset sampler,
 * then judged by {@link ChaosChecker}. Times are wall-clock milliseconds, so events from several JVMs on one machine
 * can be compared.
 */
public final class ChaosLedger {

    /** One record handed to user code. */
    public record Processed(String group, int partition, long offset, String member, long atMillis) {
    }

    /** A member owned a partition from {@code fromMillis} (assigned) to {@code toMillis} (revoked or lost). */
    public record Ownership(String group, int partition, String member, long fromMillis, long toMillis) {
    }

    /** An injected fault; {@code crash} faults (no graceful close) widen the duplicate bound. */
    public record Fault(String kind, String member, long atMillis, boolean crash) {
    }

    /** An admin reset of a group's partition to {@code offset}: replays after it are expected, not duplicates. */
    public record Reset(String group, int partition, long offset, long atMillis) {
    }

    /** A committed offset read from the store at a moment. */
    public record CommittedSample(String group, int partition, long offset, long atMillis) {
    }

    private final List<Processed> processed = Collections.synchronizedList(new ArrayList<>());
    private final List<Ownership> ownerships = Collections.synchronizedList(new ArrayList<>());
    private final List<Fault> faults = Collections.synchronizedList(new ArrayList<>());
    private final List<Reset> resets = Collections.synchronizedList(new ArrayList<>());
    private final List<CommittedSample> committed = Collections.synchronizedList(new ArrayList<>());

    public void processed(Processed p) {
        processed.add(p);
    }

    public void ownership(Ownership o) {
        ownerships.add(o);
    }

    public void fault(Fault f) {
        faults.add(f);
    }

    public void reset(Reset r) {
        resets.add(r);
    }

    public void committed(CommittedSample s) {
        committed.add(s);
    }

    public List<Processed> processed() {
        synchronized (processed) {
            return List.copyOf(processed);
        }
    }

    public List<Ownership> ownerships() {
        synchronized (ownerships) {
            return List.copyOf(ownerships);
        }
    }

    public List<Fault> faults() {
        synchronized (faults) {
            return List.copyOf(faults);
        }
    }

    public List<Reset> resets() {
        synchronized (resets) {
            return List.copyOf(resets);
        }
    }

    public List<CommittedSample> committedSamples() {
        synchronized (committed) {
            return List.copyOf(committed);
        }
    }
}
