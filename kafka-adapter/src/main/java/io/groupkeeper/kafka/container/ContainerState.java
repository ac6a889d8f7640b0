package io.groupkeeper.kafka.container;

/** A {@link ListenerContainer}'s lifecycle: LATENT → STARTING → RUNNING → STOPPING → STOPPED, or FAILED. */
public enum ContainerState {
    LATENT,
    STARTING,
    RUNNING,
    /** {@code stop()} was called; workers finish their records in flight, commit and leave. */
    STOPPING,
    /** Stopped on purpose: every worker committed and left its group. */
    STOPPED,
    /**
     * A worker died ({@link ListenerContainer#failure()}): an {@link Error} thrown by the handler (the error policy
     * treats Exceptions only) or by a deserializer, or an exception outside the handler path. It handed back what it
     * had not finished, committed what it had, and left the group, so its partitions go to other members (the
     * container's other workers included) and its record comes again. The others keep running; {@code stop()} stops
     * them and the state stays FAILED.
     */
    FAILED
}
