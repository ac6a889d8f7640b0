package io.groupkeeper.testkit.sim;

import java.util.List;

/** What {@link SeededSchedules} needs of one schedule's outcome ({@link AdapterSimulation} and {@link ContainerSimulation}). */
interface ScheduleOutcome {

    long seed();

    List<Fault> plan();

    long steps();

    List<String> violations();

    /** The end of the schedule's trace. */
    String tail();

    default boolean failed() {
        return !violations().isEmpty();
    }
}
