package io.groupkeeper.kafka.container.internal.progress;

/** An encoded progress that cannot be read: names the value (abbreviated) and what is wrong with it. */
public final class ProgressFormatException extends IllegalArgumentException {

    private static final int SHOWN = 120;

    ProgressFormatException(String value, String problem) {
        super("offset progress " + abbreviate(value) + " is not valid: " + problem);
    }

    private static String abbreviate(String value) {
        if (value == null) {
            return "null";
        }
        return value.length() <= SHOWN
                ? "'" + value + "'"
                : "'" + value.substring(0, SHOWN) + "...' (" + value.length() + " chars)";
    }
}
