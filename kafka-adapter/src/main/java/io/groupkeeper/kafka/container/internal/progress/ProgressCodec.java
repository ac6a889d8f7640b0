package io.groupkeeper.kafka.container.internal.progress;

import java.util.Base64;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The text of an offset node's {@code "done"} value: the progress above the low-water mark, as a JSON object.
 *
 * <pre>
 * {"from":100,"ranges":[[105,107],[110,110]]}                  done: 105, 106, 107, 110
 * {"from":100,"bits":"HQ=="}                                   done: from+1+i for each set bit i
 * {"from":100,"ranges":[],"attempts":[[100,3]]}                 nothing done; offset 100 failed 3 times
 * </pre>
 *
 * <p>{@code from} is the low-water mark the set was written with: a reader uses the set only when the node's offset is
 * still that value, so that an operator who changes the offset (admin reset, hand edit) clears it (I4).
 * {@code ranges}: inclusive, ascending, disjoint, all above {@code from}. {@code bits}: base64 (RFC 4648, padded) of a
 * little-endian bitset, bit {@code i} (byte {@code i/8}, bit {@code i%8}, least significant first) standing for offset
 * {@code from + 1 + i}; trailing zero bytes dropped. The encoder writes ranges while they take at most
 * {@link #READABLE} characters (readable in zkCli), beyond that whichever of the two is shorter. {@code attempts}:
 * {@code [offset, failed attempts]} of at most {@link #MAX_RECORDED_ATTEMPTS} records not done yet, the lowest
 * offsets; omitted when none.
 *
 * <p>The size is bounded by construction: with nothing dispatched at or beyond {@code from + maxSpan}, the text is at
 * most {@link #maxEncodedLength(int)} characters (ASCII: as many bytes).
 */
public final class ProgressCodec {

    /** Failed attempts are recorded for at most this many records (the lowest offsets); the others restart at 1. */
    public static final int MAX_RECORDED_ATTEMPTS = 16;

    /** Ranges up to this many characters are written as ranges even where the bitset would be shorter. */
    public static final int READABLE = 256;

    private static final int LONG_DIGITS = String.valueOf(Long.MAX_VALUE).length(); // 19
    private static final int INT_DIGITS = String.valueOf(Integer.MAX_VALUE).length(); // 10

    private ProgressCodec() {}

    /**
     * The {@code "done"} value for {@code p}; empty when nothing is done above the low-water mark and no attempts are
     * recorded (the node then holds only the offset, as in {@code PARTITION} ordering today).
     */
    public static Optional<String> encode(OffsetProgress p) {
        if (p.done().isEmpty() && p.attempts().isEmpty()) {
            return Optional.empty();
        }
        long highest = Math.max(
                p.done().isEmpty() ? p.lowWater() : p.done().last(),
                p.attempts().isEmpty() ? p.lowWater() : p.attempts().lastKey());
        if (highest - p.lowWater() >= ProgressLimits.MAX_SPAN) {
            throw new IllegalArgumentException("offset " + highest + " is " + ProgressLimits.MAX_SPAN
                    + " or more above the low-water mark " + p.lowWater() + ": beyond any span, it would not be read");
        }
        String head = "{\"from\":" + p.lowWater();
        String ranges = ",\"ranges\":" + ranges(p.done());
        int bytes = (int) ((p.span() + 7) / 8); // bits for from+1 .. last
        int bitsLength = ",\"bits\":\"\"".length() + 4 * ((bytes + 2) / 3);
        String set = ranges.length() <= Math.max(bitsLength, ",\"ranges\":".length() + READABLE)
                ? ranges
                : ",\"bits\":\"" + bits(p.lowWater(), p.done()) + "\"";
        return Optional.of(head + set + attempts(p) + "}");
    }

    /**
     * The most characters {@link #encode} can write for any progress whose done offsets lie in
     * {@code (lowWater, lowWater + maxSpan)}: the longer of the bitset at its longest and readable ranges at their
     * longest, the largest {@code from}, and
     * {@link #MAX_RECORDED_ATTEMPTS} attempts of the largest offsets and counts.
     */
    public static int maxEncodedLength(int maxSpan) {
        if (maxSpan < 1) {
            throw new IllegalArgumentException("max span must be >= 1, was " + maxSpan);
        }
        int bytes = (maxSpan - 1 + 7) / 8; // bits for from+1 .. from+maxSpan-1
        int base64 = 4 * ((bytes + 2) / 3);
        int head = "{\"from\":".length() + LONG_DIGITS;
        int set = Math.max(",\"bits\":\"".length() + base64 + "\"".length(), ",\"ranges\":".length() + READABLE);
        int entry = "[".length() + LONG_DIGITS + ",".length() + INT_DIGITS + "]".length();
        int attempts = ",\"attempts\":[".length() + MAX_RECORDED_ATTEMPTS * entry + (MAX_RECORDED_ATTEMPTS - 1) + 1;
        return head + set + attempts + "}".length();
    }

    /**
     * What a new owner resumes from: the node's offset and its {@code "done"} value (empty when absent). A value
     * written with another low-water mark than the node's offset belongs to an offset someone else replaced (an
     * operator's reset or hand edit): it is ignored and the offset alone is taken.
     *
     * @throws ProgressFormatException naming the value when it cannot be read
     */
    public static OffsetProgress resume(long committedOffset, Optional<String> done) {
        if (done.isEmpty()) {
            return OffsetProgress.at(committedOffset);
        }
        OffsetProgress p = decode(done.get());
        return p.lowWater() == committedOffset ? p : OffsetProgress.at(committedOffset);
    }

    /**
     * The progress a {@code "done"} value holds.
     *
     * @throws ProgressFormatException naming the value and the problem: not JSON, a field missing or of the wrong
     *                                 type, ranges out of order, overlapping or not above {@code from}, bad base64, an
     *                                 offset {@link ProgressLimits#MAX_SPAN} or more above {@code from}
     */
    public static OffsetProgress decode(String text) {
        if (text == null) {
            throw new ProgressFormatException(null, "no value");
        }
        int max = maxEncodedLength(ProgressLimits.MAX_SPAN) * 2; // room for a hand edit written more loosely
        if (text.length() > max) {
            throw new ProgressFormatException(text, "longer than any progress (at most " + max + " chars)");
        }
        if (!(ProgressJson.parse(text) instanceof Map<?, ?> m)) {
            throw new ProgressFormatException(text, "expected an object {\"from\": N, \"ranges\" or \"bits\": ...}");
        }
        if (!(m.get("from") instanceof Long from) || from < 0) {
            throw new ProgressFormatException(text, "field 'from' must be an integer >= 0, was " + m.get("from"));
        }
        boolean hasRanges = m.containsKey("ranges");
        boolean hasBits = m.containsKey("bits");
        if (hasRanges == hasBits) {
            throw new ProgressFormatException(text, "expected exactly one of the fields 'ranges' and 'bits'");
        }
        NavigableSet<Long> done =
                hasRanges ? fromRanges(text, from, m.get("ranges")) : fromBits(text, from, m.get("bits"));
        TreeMap<Long, Integer> attempts =
                m.containsKey("attempts") ? attempts(text, from, m.get("attempts")) : new TreeMap<>();
        try {
            return new OffsetProgress(from, done, attempts);
        } catch (IllegalArgumentException e) {
            throw new ProgressFormatException(text, e.getMessage());
        }
    }

    // ------------------------------------------------------------------ encode

    private static String ranges(NavigableSet<Long> done) {
        StringBuilder b = new StringBuilder("[");
        Long start = null;
        long prev = 0;
        for (long o : done) {
            if (start != null && o == prev + 1) {
                prev = o;
                continue;
            }
            if (start != null) {
                b.append(b.length() > 1 ? "," : "")
                        .append('[')
                        .append(start)
                        .append(',')
                        .append(prev)
                        .append(']');
            }
            start = o;
            prev = o;
        }
        if (start != null) {
            b.append(b.length() > 1 ? "," : "")
                    .append('[')
                    .append(start)
                    .append(',')
                    .append(prev)
                    .append(']');
        }
        return b.append(']').toString();
    }

    private static String bits(long lowWater, NavigableSet<Long> done) {
        BitSet set = new BitSet();
        for (long o : done) {
            set.set((int) (o - lowWater - 1));
        }
        return Base64.getEncoder().encodeToString(set.toByteArray());
    }

    private static String attempts(OffsetProgress p) {
        if (p.attempts().isEmpty()) {
            return "";
        }
        StringBuilder b = new StringBuilder(",\"attempts\":[");
        int n = 0;
        for (var e : p.attempts().entrySet()) {
            if (n == MAX_RECORDED_ATTEMPTS) {
                break;
            }
            b.append(n++ > 0 ? "," : "")
                    .append('[')
                    .append(e.getKey())
                    .append(',')
                    .append(e.getValue())
                    .append(']');
        }
        return b.append(']').toString();
    }

    // ------------------------------------------------------------------ decode

    private static NavigableSet<Long> fromRanges(String text, long from, Object value) {
        if (!(value instanceof List<?> list)) {
            throw new ProgressFormatException(text, "field 'ranges' must be an array of [first, last], was " + value);
        }
        NavigableSet<Long> done = new TreeSet<>();
        long after = from; // each range starts above the previous one's end (and above from)
        for (Object r : list) {
            if (!(r instanceof List<?> pair)
                    || pair.size() != 2
                    || !(pair.get(0) instanceof Long first)
                    || !(pair.get(1) instanceof Long last)) {
                throw new ProgressFormatException(text, "a range must be [first, last] of integers, was " + r);
            }
            if (first > last) {
                throw new ProgressFormatException(text, "range " + r + " ends before it starts");
            }
            if (first <= after) {
                throw new ProgressFormatException(
                        text,
                        "range " + r
                                + (after == from
                                        ? " is not above 'from' " + from
                                        : " is not after the range before it (ascending, disjoint)"));
            }
            requireWithinSpan(text, from, last);
            for (long o = first; o <= last; o++) {
                done.add(o);
            }
            after = last;
        }
        return done;
    }

    private static NavigableSet<Long> fromBits(String text, long from, Object value) {
        if (!(value instanceof String s)) {
            throw new ProgressFormatException(text, "field 'bits' must be a base64 string, was " + value);
        }
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(s);
        } catch (IllegalArgumentException e) {
            throw new ProgressFormatException(text, "field 'bits' is not base64: " + e.getMessage());
        }
        BitSet set = BitSet.valueOf(bytes);
        NavigableSet<Long> done = new TreeSet<>();
        if (!set.isEmpty()) {
            requireWithinSpan(text, from, from + 1 + set.length() - 1);
        }
        for (int i = set.nextSetBit(0); i >= 0; i = set.nextSetBit(i + 1)) {
            done.add(from + 1 + i);
        }
        return done;
    }

    private static TreeMap<Long, Integer> attempts(String text, long from, Object value) {
        if (!(value instanceof List<?> list)) {
            throw new ProgressFormatException(
                    text, "field 'attempts' must be an array of [offset, attempts], was " + value);
        }
        TreeMap<Long, Integer> attempts = new TreeMap<>();
        for (Object a : list) {
            if (!(a instanceof List<?> pair)
                    || pair.size() != 2
                    || !(pair.get(0) instanceof Long offset)
                    || !(pair.get(1) instanceof Long n)) {
                throw new ProgressFormatException(text, "an attempt must be [offset, attempts] of integers, was " + a);
            }
            if (n < 1 || n > Integer.MAX_VALUE) {
                throw new ProgressFormatException(text, "attempts " + a + " must count 1.." + Integer.MAX_VALUE);
            }
            requireWithinSpan(text, from, offset);
            if (attempts.put(offset, n.intValue()) != null) {
                throw new ProgressFormatException(text, "attempts at offset " + offset + " given twice");
            }
        }
        return attempts;
    }

    private static void requireWithinSpan(String text, long from, long offset) {
        if (offset - from >= ProgressLimits.MAX_SPAN || offset - from < 0) {
            throw new ProgressFormatException(
                    text,
                    "offset " + offset + " is outside 'from' .. 'from' + " + (ProgressLimits.MAX_SPAN - 1) + " (" + from
                            + ".." + (from + ProgressLimits.MAX_SPAN - 1) + ")");
        }
    }
}
