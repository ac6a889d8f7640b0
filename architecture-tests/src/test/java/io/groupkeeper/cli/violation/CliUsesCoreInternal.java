package io.groupkeeper.cli.violation;

/** Deliberate violation: the cli uses core's internal package (no friend rule covers it; the cli rule must). */
public class CliUsesCoreInternal {
    public Object ids() {
        return new io.groupkeeper.internal.LiveMemberIds();
    }
}
