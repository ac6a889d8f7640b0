package io.groupkeeper.violation.internal;

/** An internal type (for the deliberate violation {@code io.groupkeeper.violation.Leaky}). */
public class Hidden {}
