package io.groupkeeper.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The newcomer's path (issue 48): every {@code java} block of the README compiles as written — imports included —
 * against the reactor's classes (core, zk-store, kafka-adapter and what they bring, on this module's test class path);
 * the plain Java service's listing is the example's source; the BOM manages Micrometer, which the README tells users
 * to add.
 */
class ReadmeSnippetsTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Pattern JAVA_BLOCK = Pattern.compile("(?m)^```java\\n(.*?)^```$", Pattern.DOTALL);
    private static final Pattern TOP_LEVEL_TYPE =
            Pattern.compile("(?m)^(?:public\\s+)?(?:final\\s+|abstract\\s+)*(?:class|interface|record|enum)\\s+(\\w+)");

    record Snippet(int line, String code) {}

    static List<Snippet> snippets(String markdown) {
        List<Snippet> out = new ArrayList<>();
        Matcher m = JAVA_BLOCK.matcher(markdown);
        while (m.find()) {
            int line = markdown.substring(0, m.start()).split("\n", -1).length + 1;
            out.add(new Snippet(line, m.group(1)));
        }
        return out;
    }

    @Test
    void everyJavaBlockOfTheReadmeCompilesAsWritten(@TempDir Path out) throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
        List<Snippet> snippets = snippets(readme);
        assertThat(snippets).as("java blocks in README.md").hasSizeGreaterThanOrEqualTo(3);

        List<JavaFileObject> sources = new ArrayList<>();
        for (Snippet s : snippets) {
            Matcher type = TOP_LEVEL_TYPE.matcher(s.code());
            assertThat(type.find())
                    .as("README.md line %d: a snippet declares its class, so it compiles as written", s.line())
                    .isTrue();
            sources.add(
                    new SimpleJavaFileObject(
                            java.net.URI.create("string:///README.md-line-" + s.line() + "/" + type.group(1) + ".java"),
                            JavaFileObject.Kind.SOURCE) {
                        @Override
                        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                            return s.code();
                        }
                    });
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        boolean ok;
        try (StandardJavaFileManager files =
                javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            List<String> options = List.of(
                    "-classpath",
                    System.getProperty("java.class.path"),
                    "-d",
                    out.toString(),
                    "-proc:none",
                    "--release",
                    "17");
            ok = javac.getTask(null, files, diagnostics, options, null, sources).call();
        }
        List<String> errors = new ArrayList<>();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.ERROR) {
                errors.add(d.getSource().toUri().getPath() + " (snippet line " + d.getLineNumber() + "): "
                        + d.getMessage(Locale.ROOT));
            }
        }
        assertThat(errors).as("compiling the README's java blocks").isEmpty();
        assertThat(ok).isTrue();
    }

    @Test
    void thePlainJavaServiceListingIsTheExamplesSource() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
        String source = Files.readString(
                ROOT.resolve("examples/src/main/java/io/groupkeeper/examples/PlainJavaService.java"),
                StandardCharsets.UTF_8);
        String withoutPackage = source.substring(source.indexOf('\n', source.indexOf("package ")) + 1)
                .stripLeading();
        assertThat(snippets(readme)).extracting(Snippet::code).contains(withoutPackage);
    }

    @Test
    void theBomManagesMicrometerAtTheBuildsVersion() throws IOException {
        String parent = Files.readString(ROOT.resolve("pom.xml"), StandardCharsets.UTF_8);
        String bom = Files.readString(ROOT.resolve("bom/pom.xml"), StandardCharsets.UTF_8);
        Matcher version = Pattern.compile("<micrometer.version>([^<]+)</micrometer.version>")
                .matcher(parent);
        assertThat(version.find()).isTrue();
        Matcher managed = Pattern.compile("<artifactId>micrometer-core</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(bom);
        assertThat(managed.find()).as("micrometer-core in bom/pom.xml").isTrue();
        String v = managed.group(1);
        if (v.startsWith("${")) {
            Matcher property = Pattern.compile("<" + Pattern.quote(v.substring(2, v.length() - 1)) + ">([^<]+)<")
                    .matcher(bom);
            assertThat(property.find()).isTrue();
            v = property.group(1);
        }
        assertThat(v).isEqualTo(version.group(1));
    }
}
