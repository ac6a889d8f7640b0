package io.groupkeeper;

import java.util.OptionalLong;

/**
 * The stored offset of a partition as a member last saw its node ({@link GroupMember#seenOffset}). Three cases a
 * caller must tell apart:
 *
 * <ul>
 *   <li>{@link #notSeen()}: the partition is not owned (announced) by the member, or the member has no store;
 *   <li>{@link #none()}: seen, with no offset: the node had none when the partition was claimed, or its deletion (an
 *       operator's {@code offsets delete}) was adopted since; a fresh start at the start position;
 *   <li>{@link #of(long)}: seen, with this offset.
 * </ul>
 */
public final class SeenOffset {

    private static final SeenOffset NOT_SEEN = new SeenOffset(false, OptionalLong.empty());
    private static final SeenOffset NONE = new SeenOffset(true, OptionalLong.empty());

    private final boolean seen;
    private final OptionalLong offset;

    private SeenOffset(boolean seen, OptionalLong offset) {
        this.seen = seen;
        this.offset = offset;
    }

    /** Nothing seen: the partition is not owned (announced) by the member. */
    public static SeenOffset notSeen() {
        return NOT_SEEN;
    }

    /** Seen, with no offset stored. */
    public static SeenOffset none() {
        return NONE;
    }

    /** Seen, with {@code offset} stored; rejects a negative offset. */
    public static SeenOffset of(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("a stored offset is >= 0, was " + offset);
        }
        return new SeenOffset(true, OptionalLong.of(offset));
    }

    /** Seen: {@code offset}, or {@link #none()} when it is empty. */
    public static SeenOffset of(OptionalLong offset) {
        return offset.isPresent() ? of(offset.getAsLong()) : NONE;
    }

    /** Whether the member saw the node (it owns the partition). */
    public boolean isSeen() {
        return seen;
    }

    /**
     * The offset seen; empty when the node had none (or its deletion was adopted).
     *
     * @throws IllegalStateException when nothing was seen ({@link #isSeen()} is false): "not seen" is not "no offset"
     */
    public OptionalLong offset() {
        if (!seen) {
            throw new IllegalStateException("no offset was seen: the partition is not owned by the member");
        }
        return offset;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SeenOffset other && seen == other.seen && offset.equals(other.offset);
    }

    @Override
    public int hashCode() {
        return Boolean.hashCode(seen) * 31 + offset.hashCode();
    }

    @Override
    public String toString() {
        if (!seen) {
            return "not seen";
        }
        return offset.isPresent() ? "seen " + offset.getAsLong() : "seen, no offset";
    }
}
