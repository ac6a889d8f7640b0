package io.groupkeeper.spring.differential;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * The differential suite's annotation swap, done by the test rather than by hand: a listener class's source is
 * compiled as it is (Spring Kafka's {@code @KafkaListener}) or with each {@code @KafkaListener(id = X, topics = Y)}
 * replaced by {@code @GroupKeeperListener(group = X, topics = Y)} — the one change docs/spring-boot.md asks for — and
 * the import with it. Compiled with the JDK's compiler against the test classpath; loaded in a child class loader.
 */
public final class SwappedSource {

    private static final Pattern KAFKA_LISTENER = Pattern.compile("@KafkaListener\\(id = (\"[^\"]*\"), topics = ");

    private SwappedSource() {
    }

    /** The source for the starter: the annotation swapped. */
    public static String toGroupKeeper(String source) {
        String swapped = KAFKA_LISTENER.matcher(source).replaceAll(
                Matcher.quoteReplacement("@GroupKeeperListener(group = ") + "$1" + Matcher.quoteReplacement(", topics = "));
        swapped = swapped.replace("import org.springframework.kafka.annotation.KafkaListener;",
                "import io.groupkeeper.spring.GroupKeeperListener;");
        if (swapped.contains("@KafkaListener")) {
            throw new IllegalArgumentException("a @KafkaListener of another form is left: " + swapped);
        }
        return swapped;
    }

    /** Compiles {@code source} (one public class {@code className}) and loads the class. */
    public static Class<?> compile(String className, String source) {
        try {
            Path dir = Files.createTempDirectory("differential");
            Path file = dir.resolve(className.replace('.', '/') + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, source);
            String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            java.io.ByteArrayOutputStream errors = new java.io.ByteArrayOutputStream();
            int rc = javac.run(null, null, errors, "-parameters", "-proc:none", "-cp", classpath, "-d", dir.toString(),
                    file.toString());
            if (rc != 0) {
                throw new IllegalStateException("the listener source does not compile:\n" + errors + "\n" + source);
            }
            URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()},
                    SwappedSource.class.getClassLoader());
            return loader.loadClass(className);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

}
