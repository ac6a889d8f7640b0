package io.groupkeeper.zkprotocol.admin;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.groupkeeper.Names;
import io.groupkeeper.TopicPartition;
import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The offsets file formats of {@code offsets export}, {@code offsets import} and {@code offsets reset --from-file}.
 *
 * <ul>
 *   <li><b>CSV</b>: one {@code topic,partition,offset} line per partition, sorted, no header (as Kafka's
 *   {@code kafka-consumer-groups --export}); on input a header line {@code topic,partition,offset}, blank lines and
 *   {@code #} comments are allowed.</li>
 *   <li><b>JSON</b>: {@code {"group":"g","offsets":[{"topic":"t","partition":0,"offset":42}, ...]}}, one entry per
 *   line; on input a bare array of entries is accepted too.</li>
 * </ul>
 *
 * Export then import is exact: the same partitions with the same offsets, and exporting again gives the same bytes.
 * Parsing is strict: the first bad entry is reported with its line number and nothing is returned.
 */
public final class OffsetsFile {

    public enum Format {
        CSV,
        JSON
    }

    // A key given twice in one entry ("offset":3,"offset":9) is an error naming its line, not last-one-wins.
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private OffsetsFile() {}

    /** Reads and parses a file; the format is JSON if the first non-blank character is '{' or '[', else CSV. */
    public static SourceOffsets read(Path file) {
        String content;
        try {
            content = Files.readString(file, StandardCharsets.UTF_8);
        } catch (MalformedInputException e) {
            throw new AdminException("cannot read " + file + ": not UTF-8 text");
        } catch (IOException e) {
            throw new AdminException("cannot read " + file + ": "
                    + (e instanceof NoSuchFileException ? "no such file" : e.getMessage()));
        }
        return parse(file.toString(), content);
    }

    /** Parses {@code content} (named {@code name} in errors), detecting the format. */
    public static SourceOffsets parse(String name, String content) {
        String trimmed = content.stripLeading();
        if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
            return parseJson(name, content);
        }
        return parseCsv(name, content);
    }

    public static Format format(String name) {
        try {
            return Format.valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown format '" + name + "' (csv or json)");
        }
    }

    public static String write(Format format, String group, SortedMap<TopicPartition, Long> offsets) {
        return format == Format.CSV ? toCsv(offsets) : toJson(group, offsets);
    }

    public static String toCsv(SortedMap<TopicPartition, Long> offsets) {
        StringBuilder sb = new StringBuilder();
        offsets.forEach((tp, o) -> sb.append(tp.topic())
                .append(',')
                .append(tp.partition())
                .append(',')
                .append(o)
                .append('\n'));
        return sb.toString();
    }

    public static String toJson(String group, SortedMap<TopicPartition, Long> offsets) {
        // Names are letters, digits, '.', '_' and '-': nothing to escape. One entry per line, so errors name a line.
        StringBuilder sb = new StringBuilder("{\"group\":\"")
                .append(Names.requireValid("group id", group))
                .append("\",\"offsets\":[\n");
        int i = 0;
        for (Map.Entry<TopicPartition, Long> e : offsets.entrySet()) {
            sb.append("  {\"topic\":\"")
                    .append(e.getKey().topic())
                    .append("\",\"partition\":")
                    .append(e.getKey().partition())
                    .append(",\"offset\":")
                    .append(e.getValue())
                    .append('}')
                    .append(++i < offsets.size() ? ",\n" : "\n");
        }
        return sb.append("]}\n").toString();
    }

    // ------------------------------------------------------------------ CSV

    static SourceOffsets parseCsv(String name, String content) {
        SortedMap<TopicPartition, Long> offsets = new TreeMap<>();
        Map<TopicPartition, String> origins = new HashMap<>();
        Map<TopicPartition, Integer> lines = new HashMap<>();
        String[] rows = content.split("\r?\n", -1);
        for (int i = 0; i < rows.length; i++) {
            int line = i + 1;
            String row = rows[i].strip();
            if (i == 0 && row.startsWith("\uFEFF")) {
                row = row.substring(1);
            }
            if (row.isEmpty() || row.startsWith("#")) {
                continue;
            }
            if (offsets.isEmpty() && row.replace(" ", "").equalsIgnoreCase("topic,partition,offset")) {
                continue; // header
            }
            String[] f = row.split(",", -1);
            if (f.length != 3) {
                throw bad(
                        name,
                        line,
                        "expected topic,partition,offset, found " + f.length + " field(s): '" + abbreviate(row) + "'");
            }
            String topic = f[0].strip();
            if (!Names.isValid(topic)) {
                throw bad(name, line, "invalid topic '" + abbreviate(topic) + "' (letters, digits, '.', '_' and '-')");
            }
            int partition = parseInt(name, line, "partition", f[1].strip());
            long offset = parseLong(name, line, "offset", f[2].strip());
            add(name, line, new TopicPartition(topic, partition), offset, offsets, origins, lines);
        }
        if (offsets.isEmpty()) {
            throw new AdminException(name + " has no offsets (expected lines of topic,partition,offset)");
        }
        return new SourceOffsets(name, offsets, origins);
    }

    // ------------------------------------------------------------------ JSON

    static SourceOffsets parseJson(String name, String content) {
        SortedMap<TopicPartition, Long> offsets = new TreeMap<>();
        Map<TopicPartition, String> origins = new HashMap<>();
        Map<TopicPartition, Integer> lines = new HashMap<>();
        Optional<String> group = Optional.empty();
        try (JsonParser p = JSON.createParser(content)) {
            JsonToken t = p.nextToken();
            if (t == JsonToken.START_OBJECT) {
                boolean found = false;
                while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    JsonToken v = p.nextToken();
                    if (field.equals("offsets")) {
                        found = true;
                        readEntries(name, p, offsets, origins, lines);
                    } else if (field.equals("group")) {
                        if (v != JsonToken.VALUE_STRING || !Names.isValid(p.getText())) {
                            throw bad(name, line(p), "\"group\" must be a group id, was " + abbreviate(p.getText()));
                        }
                        group = Optional.of(p.getText());
                    } else {
                        p.skipChildren(); // anything added later
                    }
                }
                if (!found) {
                    throw bad(name, line(p), "no \"offsets\" array");
                }
            } else if (t == JsonToken.START_ARRAY) {
                readEntries(name, p, offsets, origins, lines);
            } else {
                throw bad(name, line(p), "expected {\"offsets\":[...]} or [...]");
            }
            if (p.nextToken() != null) {
                throw bad(name, line(p), "unexpected content after the offsets");
            }
        } catch (JsonProcessingException e) {
            int line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
            throw bad(name, line, "not valid JSON: " + e.getOriginalMessage().split("\n")[0]);
        } catch (IOException e) {
            throw new AdminException("cannot read " + name + ": " + e.getMessage(), e);
        }
        if (offsets.isEmpty()) {
            throw new AdminException(name + " has no offsets");
        }
        return new SourceOffsets(name, offsets, origins, group);
    }

    private static void readEntries(
            String name,
            JsonParser p,
            SortedMap<TopicPartition, Long> offsets,
            Map<TopicPartition, String> origins,
            Map<TopicPartition, Integer> lines)
            throws IOException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw bad(name, line(p), "\"offsets\" must be an array");
        }
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            int line = line(p);
            if (t != JsonToken.START_OBJECT) {
                throw bad(
                        name, line, "expected {\"topic\":...,\"partition\":...,\"offset\":...}, found " + p.getText());
            }
            String topic = null;
            Long partition = null;
            Long offset = null;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                switch (field) {
                    case "topic" -> {
                        if (v != JsonToken.VALUE_STRING) {
                            throw bad(name, line(p), "\"topic\" must be a string");
                        }
                        topic = p.getText();
                    }
                    case "partition" -> partition = integral(name, p, v, "partition");
                    case "offset" -> offset = integral(name, p, v, "offset");
                    default -> p.skipChildren();
                }
            }
            if (topic == null || partition == null || offset == null) {
                throw bad(name, line, "entry needs \"topic\", \"partition\" and \"offset\"");
            }
            if (!Names.isValid(topic)) {
                throw bad(name, line, "invalid topic '" + abbreviate(topic) + "' (letters, digits, '.', '_' and '-')");
            }
            if (partition < 0 || partition > Integer.MAX_VALUE) {
                throw bad(name, line, "partition must be >= 0, was " + partition);
            }
            if (offset < 0) {
                throw bad(name, line, "offset must be >= 0, was " + offset);
            }
            add(name, line, new TopicPartition(topic, partition.intValue()), offset, offsets, origins, lines);
        }
    }

    private static Long integral(String name, JsonParser p, JsonToken v, String field) throws IOException {
        if (v != JsonToken.VALUE_NUMBER_INT) {
            throw bad(name, line(p), "\"" + field + "\" must be an integer, was " + p.getText());
        }
        try {
            return p.getLongValue();
        } catch (IOException e) {
            throw bad(name, line(p), "\"" + field + "\" is out of range: " + p.getText());
        }
    }

    private static int line(JsonParser p) {
        return p.currentTokenLocation().getLineNr();
    }

    // ------------------------------------------------------------------ helpers

    private static void add(
            String name,
            int line,
            TopicPartition tp,
            long offset,
            SortedMap<TopicPartition, Long> offsets,
            Map<TopicPartition, String> origins,
            Map<TopicPartition, Integer> lines) {
        Integer first = lines.putIfAbsent(tp, line);
        if (first != null) {
            throw bad(name, line, tp + " appears twice (first on line " + first + ")");
        }
        offsets.put(tp, offset);
        origins.put(tp, "line " + line + " of " + name);
    }

    private static int parseInt(String name, int line, String what, String text) {
        long v = parseLong(name, line, what, text);
        if (v > Integer.MAX_VALUE) {
            throw bad(name, line, what + " is out of range: " + text);
        }
        return (int) v;
    }

    private static long parseLong(String name, int line, String what, String text) {
        long v;
        try {
            v = Long.parseLong(text.startsWith("+") ? text.substring(1) : text);
        } catch (NumberFormatException e) {
            throw bad(name, line, what + " '" + abbreviate(text) + "' is not a number");
        }
        if (v < 0) {
            throw bad(name, line, what + " must be >= 0, was " + v);
        }
        return v;
    }

    private static AdminException bad(String name, int line, String problem) {
        return new AdminException(name + " line " + line + ": " + problem + "; nothing was written");
    }

    private static String abbreviate(String s) {
        return s.length() <= 60 ? s : s.substring(0, 57) + "...";
    }
}
