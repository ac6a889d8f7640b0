package io.groupkeeper.kafka.container.internal.progress;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict reader of the small JSON subset progress is written in: objects, arrays, integers, plain strings (no
 * escapes), {@code true}, {@code false}, {@code null}. Integers are {@link Long}s; a fraction, an exponent or an
 * integer outside {@code long} is refused, as is nesting deeper than a few levels. No dependency on a JSON library,
 * so the encoding can move to core (which has none) unchanged.
 */
final class ProgressJson {

    private static final int MAX_DEPTH = 8;

    private final String text;
    private int at;

    private ProgressJson(String text) {
        this.text = text;
    }

    /** The value {@code text} holds; {@link ProgressFormatException} naming the text and the position if not JSON. */
    static Object parse(String text) {
        ProgressJson p = new ProgressJson(text);
        Object v = p.value(0);
        p.space();
        if (p.at != text.length()) {
            throw p.error("unexpected '" + text.charAt(p.at) + "' after the value");
        }
        return v;
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) {
            throw error("nested deeper than " + MAX_DEPTH);
        }
        space();
        if (at >= text.length()) {
            throw error("unexpected end");
        }
        char c = text.charAt(at);
        if (c == '{') {
            return object(depth);
        }
        if (c == '[') {
            return array(depth);
        }
        if (c == '"') {
            return string();
        }
        if (c == '-' || c >= '0' && c <= '9') {
            return integer();
        }
        for (String word : new String[] {"true", "false", "null"}) {
            if (text.startsWith(word, at)) {
                at += word.length();
                return word.equals("null") ? null : Boolean.valueOf(word);
            }
        }
        throw error("unexpected '" + c + "'");
    }

    private Map<String, Object> object(int depth) {
        Map<String, Object> m = new LinkedHashMap<>();
        at++; // {
        space();
        if (peek('}')) {
            at++;
            return m;
        }
        while (true) {
            space();
            if (!peek('"')) {
                throw error("expected a field name");
            }
            String name = string();
            space();
            expect(':');
            Object v = value(depth + 1);
            if (m.containsKey(name)) {
                throw error("field '" + name + "' given twice");
            }
            m.put(name, v);
            space();
            if (peek(',')) {
                at++;
            } else {
                expect('}');
                return m;
            }
        }
    }

    private List<Object> array(int depth) {
        List<Object> l = new ArrayList<>();
        at++; // [
        space();
        if (peek(']')) {
            at++;
            return l;
        }
        while (true) {
            l.add(value(depth + 1));
            space();
            if (peek(',')) {
                at++;
            } else {
                expect(']');
                return l;
            }
        }
    }

    private String string() {
        int start = ++at;
        while (at < text.length() && text.charAt(at) != '"') {
            if (text.charAt(at) == '\\') {
                throw error("escapes are not used in progress");
            }
            at++;
        }
        if (at >= text.length()) {
            throw error("unterminated string");
        }
        return text.substring(start, at++);
    }

    private Long integer() {
        int start = at;
        if (peek('-')) {
            at++;
        }
        while (at < text.length() && Character.isDigit(text.charAt(at))) {
            at++;
        }
        if (at < text.length() && (text.charAt(at) == '.' || text.charAt(at) == 'e' || text.charAt(at) == 'E')) {
            throw error("not an integer");
        }
        try {
            return Long.parseLong(text.substring(start, at));
        } catch (NumberFormatException e) {
            throw error("not an integer in range: '" + text.substring(start, at) + "'");
        }
    }

    private void space() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }

    private boolean peek(char c) {
        return at < text.length() && text.charAt(at) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error(
                    at < text.length()
                            ? "expected '" + c + "', found '" + text.charAt(at) + "'"
                            : "expected '" + c + "', found the end");
        }
        at++;
    }

    private ProgressFormatException error(String problem) {
        return new ProgressFormatException(text, "not the JSON expected at char " + at + ": " + problem);
    }
}
