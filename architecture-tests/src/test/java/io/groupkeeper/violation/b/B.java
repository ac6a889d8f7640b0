package io.groupkeeper.violation.b;

/** Deliberate violation: b → a → b. */
public class B {
    io.groupkeeper.violation.a.A a;
}
