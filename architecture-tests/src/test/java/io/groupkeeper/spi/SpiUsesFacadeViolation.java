package io.groupkeeper.spi;

/** Deliberate violation: spi → the root package's facade, a cycle the frozen exception must not hide. */
public class SpiUsesFacadeViolation {
    io.groupkeeper.GroupKeeper keeper;
}
