package io.groupkeeper.violation.a;

/** Deliberate violation: a → b → a. */
public class A {
    io.groupkeeper.violation.b.B b;
}
