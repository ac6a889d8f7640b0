package io.groupkeeper.kafka;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a partition that has <em>no committed offset</em> in the group starts: the log's first offset
 * ({@link #earliest()}), its end ({@link #latest()}, the default), or the first record at or after a
 * {@linkplain #timestamp(Instant) timestamp} (the log end if there is none). A partition with a committed offset always
 * resumes there; a committed offset outside the log follows the {@link OutOfRangePolicy} instead.
 *
 * <p>The resolved start is committed with the partition's first commit, so a member that dies before consuming anything
 * does not make its successor start at a later "latest".
 */
public final class StartPosition {

    /** The three kinds of start. */
    public enum Kind {
        EARLIEST,
        LATEST,
        TIMESTAMP
    }

    private static final StartPosition EARLIEST = new StartPosition(Kind.EARLIEST, null);
    private static final StartPosition LATEST = new StartPosition(Kind.LATEST, null);

    private final Kind kind;
    private final Instant timestamp;

    private StartPosition(Kind kind, Instant timestamp) {
        this.kind = kind;
        this.timestamp = timestamp;
    }

    /** The first offset still in the log. */
    public static StartPosition earliest() {
        return EARLIEST;
    }

    /** The log end: only records produced after the partition was assigned (the default). */
    public static StartPosition latest() {
        return LATEST;
    }

    /** The first record whose timestamp is at or after {@code timestamp}; the log end if there is none. */
    public static StartPosition timestamp(Instant timestamp) {
        return new StartPosition(Kind.TIMESTAMP, Objects.requireNonNull(timestamp, "timestamp"));
    }

    /**
     * Parses {@code earliest}, {@code latest} (any case), an ISO-8601 instant ({@code 2026-11-29T16:00:00Z}) or epoch
     * milliseconds.
     *
     * @throws IllegalArgumentException naming the text if it is none of these
     */
    public static StartPosition parse(String text) {
        Objects.requireNonNull(text, "start position");
        String t = text.trim();
        switch (t.toLowerCase(Locale.ROOT)) {
            case "earliest":
                return EARLIEST;
            case "latest":
                return LATEST;
            default:
                break;
        }
        try {
            return timestamp(Instant.parse(t));
        } catch (DateTimeParseException e) {
            try {
                return timestamp(Instant.ofEpochMilli(Long.parseLong(t)));
            } catch (NumberFormatException nfe) {
                throw new IllegalArgumentException("start position must be earliest, latest, an ISO-8601 instant "
                        + "(2026-11-29T16:00:00Z) or epoch milliseconds, was '" + text + "'");
            }
        }
    }

    public Kind kind() {
        return kind;
    }

    /** The timestamp of a {@link Kind#TIMESTAMP} start. */
    public Optional<Instant> timestampValue() {
        return Optional.ofNullable(timestamp);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StartPosition s && s.kind == kind && Objects.equals(s.timestamp, timestamp);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, timestamp);
    }

    @Override
    public String toString() {
        return kind == Kind.TIMESTAMP ? "timestamp " + timestamp : kind.name().toLowerCase(Locale.ROOT);
    }
}
