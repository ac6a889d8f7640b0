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
    /** A worker died of an unexpected exception ({@link ListenerContainer#failure()}); the others keep running. */
    FAILED
}
