package io.groupkeeper.status;

import java.util.Optional;

/**
 * The mark a consumer writes into a partition's offset node (its {@code metadata} field) while its handler fails on
 * every record: {@link #THRESHOLD} or more records in a row were not handled but recovered (dead-lettered or skipped)
 * by the listener container's error policy. The partition moves on, so its commit history looks healthy; lag status
 * reads the mark and says at least {@link LagStatus#WARN} with its reason, until a record is handled again and the
 * next commit writes the mark away (docs/service.md, "Error policy").
 */
public final class FailingMark {

    /** How every mark begins. */
    public static final String PREFIX = "groupkeeper:failing ";
    /** Records in a row recovered instead of handled before a partition is marked. */
    public static final int THRESHOLD = 3;

    private FailingMark() {}

    /** The mark after {@code records} records in a row were recovered, the last at {@code offset} for {@code reason}. */
    public static String of(int records, long offset, String reason) {
        String r = reason == null ? "" : reason.replaceAll("\\s+", " ");
        if (r.length() > StoppedMark.MAX_REASON) {
            r = r.substring(0, StoppedMark.MAX_REASON) + "...";
        }
        return PREFIX + records + " records in a row not handled (dead-lettered or skipped), the last at offset "
                + offset + ": " + r;
    }

    /** What a stored metadata string says of the partition: the mark's text (after the prefix), if it is one. */
    public static Optional<String> read(String metadata) {
        return metadata != null && metadata.startsWith(PREFIX)
                ? Optional.of(metadata.substring(PREFIX.length()))
                : Optional.empty();
    }
}
