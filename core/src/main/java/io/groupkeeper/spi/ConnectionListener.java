package io.groupkeeper.spi;

/** Hears connection state changes of a {@link CoordinationStore}. */
@FunctionalInterface
public interface ConnectionListener {

    void stateChanged(ConnectionEvent event);
}
