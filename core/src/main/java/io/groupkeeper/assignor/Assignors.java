package io.groupkeeper.assignor;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The built-in assignors by name: {@code range} ({@link RangeAssignor}), {@code round-robin}
 * ({@link RoundRobinAssignor}) and {@code sticky} ({@link StickyAssignor}, the default). The built-ins are
 * stateless, so the same instances are handed out every time.
 */
public final class Assignors {

    private static final PartitionAssignor STICKY = new StickyAssignor();

    private static final Map<String, PartitionAssignor> BUILT_INS;

    static {
        Map<String, PartitionAssignor> byName = new TreeMap<>();
        for (PartitionAssignor assignor :
                new PartitionAssignor[] {new RangeAssignor(), new RoundRobinAssignor(), STICKY}) {
            byName.put(assignor.name(), assignor);
        }
        BUILT_INS = Collections.unmodifiableMap(byName);
    }

    private Assignors() {}

    /**
     * The built-in assignor called {@code name} (exact, case-sensitive match).
     *
     * @throws IllegalArgumentException if there is none, naming the known ones
     */
    public static PartitionAssignor byName(String name) {
        Objects.requireNonNull(name, "name");
        PartitionAssignor assignor = BUILT_INS.get(name);
        if (assignor == null) {
            throw new IllegalArgumentException("unknown assignor '" + name + "'; known: " + String.join(", ", names()));
        }
        return assignor;
    }

    /** The names of the built-in assignors, sorted. */
    public static Set<String> names() {
        return BUILT_INS.keySet();
    }

    /** The assignor used when none is configured: {@code sticky}. */
    public static PartitionAssignor defaultAssignor() {
        return STICKY;
    }
}
