package io.groupkeeper.examples;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/** Every record the consumers of one group handed to user code, in order: who got what. */
final class Deliveries {

    record Delivery(String consumer, int partition, long offset, String value) {}

    private final List<Delivery> all = new CopyOnWriteArrayList<>();

    void add(Delivery d) {
        all.add(d);
    }

    int size() {
        return all.size();
    }

    List<Delivery> all() {
        return List.copyOf(all);
    }

    List<Delivery> of(String consumer) {
        List<Delivery> out = new ArrayList<>();
        for (Delivery d : all) {
            if (d.consumer().equals(consumer)) {
                out.add(d);
            }
        }
        return out;
    }

    Set<String> distinctValues() {
        Set<String> out = new LinkedHashSet<>();
        all.forEach(d -> out.add(d.value()));
        return out;
    }

    /** Deliveries of values that were delivered before (the repeats). */
    List<Delivery> repeats() {
        Map<String, Integer> seen = new HashMap<>();
        List<Delivery> out = new ArrayList<>();
        for (Delivery d : all) {
            if (seen.merge(d.value(), 1, Integer::sum) > 1) {
                out.add(d);
            }
        }
        return out;
    }
}
