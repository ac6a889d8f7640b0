package io.groupkeeper.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A long class says at its top why it is long, and what it says of its length stays true: every main class over
 * {@value #NOTE_ABOVE} lines has a size note ("About N lines: …" or "Over N lines …") before its declaration, and every
 * such note in any source, main or test, is within {@value #TOLERANCE_PERCENT}% of the file's length (an "Over N"
 * note: the file has more than N lines).
 */
class SizeNotesTest {

    static final int NOTE_ABOVE = 600;
    static final int TOLERANCE_PERCENT = 10;

    private static final Pattern NOTE = Pattern.compile("\\b(About|Over) ([0-9][0-9,]*) lines\\b");
    private static final Pattern DECLARATION = Pattern.compile(
            "^(public |abstract |final |sealed |non-sealed )*(class|interface|enum|record|@interface) ",
            Pattern.MULTILINE);

    private final Path root = Path.of("..").toAbsolutePath().normalize();

    @Test
    void everyLongMainClassSaysWhyAndEverySizeNoteIsTrue() throws IOException {
        assertThat(root.resolve("pom.xml")).as("the repository root").exists();
        List<String> wrong = new ArrayList<>();
        List<Path> sources = sources();
        for (Path file : sources) {
            wrong.addAll(problems(root.relativize(file).toString(), Files.readString(file)));
        }
        assertThat(sources).as("Java sources found under %s", root).hasSizeGreaterThan(100);
        assertThat(wrong)
                .as("size notes (update the note's number, or say at the class's top why it is long)")
                .isEmpty();
    }

    @Test
    void aLongClassWithoutANoteAndANoteThatNoLongerHoldsAreBothReported() {
        String body = "x();\n".repeat(NOTE_ABOVE);
        assertThat(problems("a/src/main/java/A.java", "package a;\n/** Does a. */\nfinal class A {\n" + body + "}\n"))
                .singleElement()
                .asString()
                .contains("no size note");
        assertThat(problems("a/src/main/java/B.java", "/** <p>About 900 lines: why. */\nclass B {\n" + body + "}\n"))
                .singleElement()
                .asString()
                .contains("says about 900");
        assertThat(problems("a/src/main/java/C.java", "/** <p>About 600 lines: why. */\nclass C {\n" + body + "}\n"))
                .isEmpty();
        assertThat(problems("a/src/test/java/D.java", "/** Over 700 lines because. */\nclass D {\n" + body + "}\n"))
                .singleElement()
                .asString()
                .contains("says over 700");
        assertThat(problems("a/src/test/java/E.java", "class E {\n" + body + "}\n"))
                .isEmpty();
    }

    /** What is wrong with one source's size note, if anything. */
    static List<String> problems(String name, String text) {
        long lines = text.lines().count();
        Matcher declaration = DECLARATION.matcher(text);
        String head = declaration.find() ? text.substring(0, declaration.start()) : text;
        Matcher note = NOTE.matcher(head);
        List<String> problems = new ArrayList<>();
        if (!note.find()) {
            if (lines > NOTE_ABOVE && name.contains("/src/main/java/")) {
                problems.add(name + ": " + lines + " lines and no size note at its top");
            }
            return problems;
        }
        long said = Long.parseLong(note.group(2).replace(",", ""));
        boolean over = note.group(1).equals("Over");
        boolean holds = over ? lines > said : Math.abs(lines - said) * 100 <= lines * TOLERANCE_PERCENT;
        if (!holds) {
            problems.add(name + ": " + lines + " lines, its note says "
                    + note.group(1).toLowerCase() + " " + said);
        }
        return problems;
    }

    private List<Path> sources() {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> {
                        String path = root.relativize(p).toString();
                        return (path.contains("/src/main/java/") || path.contains("/src/test/java/"))
                                && !path.contains("/target/")
                                && !path.startsWith("target/");
                    })
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
