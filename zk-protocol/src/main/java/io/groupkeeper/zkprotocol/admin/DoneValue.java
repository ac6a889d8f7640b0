package io.groupkeeper.zkprotocol.admin;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Base64;
import java.util.BitSet;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;

/**
 * Reads an offset node's {@code "done"} value for operators: how many offsets above the committed one (the low-water
 * mark) are recorded as done. The value is written by the listener container's {@code ProgressCodec} (kafka-adapter),
 * which this module must not depend on; this is its reading rules again, as far as counting needs them, kept in step
 * by kafka-adapter's {@code DoneValueAgreesWithProgressCodecTest}:
 * <ul>
 *   <li>one JSON object; {@code from}: an integer &ge; 0, the low-water mark the value was written with;</li>
 *   <li>exactly one of {@code ranges} (inclusive {@code [first, last]} integer pairs, ascending, disjoint, above
 *   {@code from}) and {@code bits} (base64, RFC 4648, of a little-endian bitset: bit {@code i} is offset
 *   {@code from + 1 + i});</li>
 *   <li>optional {@code attempts}: {@code [offset, failed attempts]} pairs, attempts 1..2<sup>31</sup>-1, offsets at or
 *   above {@code from}, none given twice, none also done;</li>
 *   <li>every offset less than {@link #MAX_SPAN} above {@code from}; at most {@link #MAX_LENGTH} characters; unknown
 *   fields ignored.</li>
 * </ul>
 * A value written with another {@code from} than the node's offset was cleared by whoever changed the offset (an admin
 * reset, a hand edit: I4) and counts nothing.
 */
public final class DoneValue {

    /** Done offsets lie below {@code from} + this ({@code ProgressLimits.MAX_SPAN}). */
    public static final int MAX_SPAN = 1 << 18;

    /** Twice the longest value any progress encodes to ({@code ProgressCodec.maxEncodedLength(MAX_SPAN)}: 44,271). */
    public static final int MAX_LENGTH = 2 * 44_271;

    private static final ObjectMapper JSON = new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private DoneValue() {}

    /**
     * How many offsets above {@code committed} the value {@code done} records as done; 0 when it was written with
     * another offset ({@code from} is not {@code committed}).
     *
     * @throws IllegalArgumentException naming the problem when the value cannot be read
     */
    public static int doneAbove(long committed, String done) {
        Read r = read(done);
        return r.from() == committed ? r.done().size() : 0;
    }

    /** A value as read: the low-water mark it was written with and the offsets done above it. */
    record Read(long from, Set<Long> done) {}

    /** A value, checked by the rules above. */
    static Read read(String text) {
        if (text == null) {
            throw problem("no value");
        }
        if (text.length() > MAX_LENGTH) {
            throw problem("longer than any progress (at most " + MAX_LENGTH + " chars)");
        }
        JsonNode n;
        try {
            n = JSON.reader()
                    .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .readTree(text);
        } catch (JsonProcessingException e) {
            throw problem("not JSON: " + e.getOriginalMessage());
        }
        if (n == null || !n.isObject()) {
            throw problem("expected an object {\"from\": N, \"ranges\" or \"bits\": ...}");
        }
        JsonNode f = n.get("from");
        if (!integer(f) || f.asLong() < 0) {
            throw problem("field 'from' must be an integer >= 0, was " + f);
        }
        long from = f.asLong();
        if (n.has("ranges") == n.has("bits")) {
            throw problem("expected exactly one of the fields 'ranges' and 'bits'");
        }
        Set<Long> done = n.has("ranges") ? ranges(from, n.get("ranges")) : bits(from, n.get("bits"));
        if (n.has("attempts")) {
            attempts(from, n.get("attempts"), done);
        }
        return new Read(from, done);
    }

    private static Set<Long> ranges(long from, JsonNode value) {
        if (!value.isArray()) {
            throw problem("field 'ranges' must be an array of [first, last], was " + value);
        }
        Set<Long> done = new HashSet<>();
        long after = from;
        for (JsonNode r : value) {
            if (!r.isArray() || r.size() != 2 || !integer(r.get(0)) || !integer(r.get(1))) {
                throw problem("a range must be [first, last] of integers, was " + r);
            }
            long first = r.get(0).asLong();
            long last = r.get(1).asLong();
            if (first > last) {
                throw problem("range " + r + " ends before it starts");
            }
            if (first <= after) {
                throw problem("range " + r
                        + (after == from
                                ? " is not above 'from' " + from
                                : " is not after the range before it (ascending, disjoint)"));
            }
            withinSpan(from, last);
            for (long o = first; o <= last; o++) {
                done.add(o);
            }
            after = last;
        }
        return done;
    }

    private static Set<Long> bits(long from, JsonNode value) {
        if (!value.isTextual()) {
            throw problem("field 'bits' must be a base64 string, was " + value);
        }
        BitSet set;
        try {
            set = BitSet.valueOf(Base64.getDecoder().decode(value.asText()));
        } catch (IllegalArgumentException e) {
            throw problem("field 'bits' is not base64: " + e.getMessage());
        }
        if (!set.isEmpty()) {
            withinSpan(from, from + set.length());
        }
        Set<Long> done = new HashSet<>();
        for (int i = set.nextSetBit(0); i >= 0; i = set.nextSetBit(i + 1)) {
            done.add(from + 1 + i);
        }
        return done;
    }

    private static void attempts(long from, JsonNode value, Set<Long> done) {
        if (!value.isArray()) {
            throw problem("field 'attempts' must be an array of [offset, attempts], was " + value);
        }
        Set<Long> seen = new HashSet<>();
        for (Iterator<JsonNode> it = value.elements(); it.hasNext(); ) {
            JsonNode a = it.next();
            if (!a.isArray() || a.size() != 2 || !integer(a.get(0)) || !integer(a.get(1))) {
                throw problem("an attempt must be [offset, attempts] of integers, was " + a);
            }
            long offset = a.get(0).asLong();
            long n = a.get(1).asLong();
            if (n < 1 || n > Integer.MAX_VALUE) {
                throw problem("attempts " + a + " must count 1.." + Integer.MAX_VALUE);
            }
            withinSpan(from, offset);
            if (!seen.add(offset)) {
                throw problem("attempts at offset " + offset + " given twice");
            }
            if (done.contains(offset)) {
                throw problem("offset " + offset + " is both done and has attempts");
            }
        }
    }

    private static boolean integer(JsonNode v) {
        return v != null && v.isIntegralNumber() && v.canConvertToLong();
    }

    private static void withinSpan(long from, long offset) {
        if (offset - from >= MAX_SPAN || offset - from < 0) {
            throw problem("offset " + offset + " is outside 'from' .. 'from' + " + (MAX_SPAN - 1) + " (" + from + ".."
                    + (from + MAX_SPAN - 1) + ")");
        }
    }

    private static IllegalArgumentException problem(String what) {
        return new IllegalArgumentException("done value unreadable: " + what);
    }
}
