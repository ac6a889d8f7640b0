package io.groupkeeper.testkit.internal;

/** Receives watch notifications, on the owning client's event lane. */
@FunctionalInterface
public interface Watcher {

    void process(WatchEvent event);
}
