package io.groupkeeper.benchmarks.support;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Tiny {@code --name value} / {@code --flag} parser for the harness mains; unknown options fail fast. */
public final class Args {

    private final Map<String, String> values = new HashMap<>();
    private final Set<String> flags;
    private final Set<String> options;

    public Args(String[] args, Set<String> flags, Set<String> options) {
        this.flags = flags;
        this.options = options;
        List<String> rest = new ArrayList<>(List.of(args));
        for (int i = 0; i < rest.size(); i++) {
            String a = rest.get(i);
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument '" + a + "'");
            }
            String name = a.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (flags.contains(name)) {
                values.put(name, value == null ? "true" : value);
            } else if (options.contains(name)) {
                if (value == null) {
                    if (i + 1 >= rest.size()) {
                        throw new IllegalArgumentException("option --" + name + " needs a value");
                    }
                    value = rest.get(++i);
                }
                values.put(name, value);
            } else {
                throw new IllegalArgumentException(
                        "unknown option --" + name + "; known: flags " + flags + ", options " + options);
            }
        }
    }

    public boolean flag(String name) {
        return Boolean.parseBoolean(values.getOrDefault(name, "false"));
    }

    public String get(String name, String def) {
        return values.getOrDefault(name, def);
    }

    public int getInt(String name, int def) {
        return values.containsKey(name) ? Integer.parseInt(values.get(name)) : def;
    }

    public Path path(String name, String def) {
        return Path.of(get(name, def));
    }

    public boolean has(String name) {
        return values.containsKey(name);
    }
}
