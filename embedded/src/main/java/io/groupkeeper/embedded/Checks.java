package io.groupkeeper.embedded;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** Argument checks whose messages name the option. */
final class Checks {

    private Checks() {}

    static Duration positive(String option, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(option + " must be a positive duration, was " + value);
        }
        return value;
    }

    static String notBlank(String option, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(option + " must not be blank, was '" + value + "'");
        }
        return value;
    }

    static void notAFile(String option, Path dir) {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new IllegalArgumentException(option + " must be a directory, but " + dir + " is a file");
        }
    }
}
