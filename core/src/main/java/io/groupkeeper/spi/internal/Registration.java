package io.groupkeeper.spi.internal;

/** A registered member node; closing it removes the node. */
public interface Registration extends AutoCloseable {

    @Override
    void close();
}
