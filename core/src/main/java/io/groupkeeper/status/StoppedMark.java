package io.groupkeeper.status;

import java.util.Optional;

/**
 * The mark a consumer writes into a partition's offset node (its {@code metadata} field) while it keeps the partition
 * stopped — owned, fetching nothing — because processing cannot go on there (the listener container's error policy
 * stopped it at a record). Lag status reads it: a marked partition is {@link LagStatus#STOP} with the mark's reason,
 * whatever its commit history says, until the consumer runs it again and its next commit writes the mark away
 * (docs/service.md, "Error policy").
 */
public final class StoppedMark {

    /** How every mark begins. */
    public static final String PREFIX = "groupkeeper:stopped ";
    /** Marks are kept short: the offset node's body is read by every status query. */
    static final int MAX_REASON = 300;

    private StoppedMark() {}

    /** The mark of a partition stopped at {@code offset} for {@code reason} (shortened to a few hundred characters). */
    public static String of(long offset, String reason) {
        String r = reason == null ? "" : reason.replaceAll("\\s+", " ");
        if (r.length() > MAX_REASON) {
            r = r.substring(0, MAX_REASON) + "...";
        }
        return PREFIX + "at offset " + offset + ": " + r;
    }

    /** What a stored metadata string says of the partition: the mark's text (after the prefix), if it is one. */
    public static Optional<String> read(String metadata) {
        return metadata != null && metadata.startsWith(PREFIX)
                ? Optional.of(metadata.substring(PREFIX.length()))
                : Optional.empty();
    }
}
