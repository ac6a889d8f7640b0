package io.groupkeeper;

/**
 * Validation of the names that become ZooKeeper path segments: group ids, member ids, instance ids and topics.
 * A name must be 1..249 characters of letters, digits, '.', '_' and '-' (Kafka's topic alphabet), and not '.'
 * or '..'. Rejecting early gives one clear error instead of a ZooKeeper path error deep in a rebalance.
 */
public final class Names {

    public static final int MAX_LENGTH = 249;

    private Names() {}

    /** Returns {@code value} if it is a valid name, else throws naming {@code what} and the value. */
    public static String requireValid(String what, String value) {
        String problem = problem(value);
        if (problem != null) {
            throw new IllegalArgumentException(what + " " + problem);
        }
        return value;
    }

    /** Whether {@code value} is usable as a name. */
    public static boolean isValid(String value) {
        return problem(value) == null;
    }

    private static String problem(String value) {
        if (value == null) {
            return "must not be null";
        }
        if (value.isEmpty()) {
            return "must not be empty";
        }
        if (value.length() > MAX_LENGTH) {
            return "must be at most " + MAX_LENGTH + " characters, was " + value.length();
        }
        if (value.equals(".") || value.equals("..")) {
            return "must not be '" + value + "'";
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '_'
                    || c == '-';
            if (!ok) {
                return "'" + value + "' contains '" + printable(c) + "' at index " + i
                        + "; allowed are letters, digits, '.', '_' and '-'";
            }
        }
        return null;
    }

    private static String printable(char c) {
        return Character.isISOControl(c) || Character.isWhitespace(c)
                ? String.format("\\u%04x", (int) c)
                : String.valueOf(c);
    }
}
