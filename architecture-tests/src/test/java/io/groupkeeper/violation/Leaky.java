package io.groupkeeper.violation;

import io.groupkeeper.violation.internal.Hidden;
import java.util.List;

/** Deliberate violation: a public API method whose return type names an internal type (inside a generic). */
public class Leaky {
    public List<Hidden> hidden() {
        return List.of();
    }
}
