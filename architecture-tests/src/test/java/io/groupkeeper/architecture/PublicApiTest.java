package io.groupkeeper.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaConstructor;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.domain.JavaTypeVariable;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The exported public API of every library module, listed in a committed signature file per module
 * ({@code architecture-tests/api/<module>.api}: public types and their public and protected members, sorted, one per
 * line), so that every change to it shows in review. The test regenerates each listing and fails with the lines added
 * and removed when it differs. To accept a reviewed change, rewrite the files and commit them:
 *
 * <pre>{@code mvn -B -o -q -pl architecture-tests -am verify -Dtest=PublicApiTest -Dsurefire.failIfNoSpecifiedTests=false -Dgroupkeeper.api.accept=true}</pre>
 *
 * <p>Exported means: in a module with a {@code module-info}, the packages it exports to everyone (not those exported
 * only to friends); in a module without one, every package outside {@code internal}. A type is listed when it and every
 * class enclosing it are public or protected.
 */
class PublicApiTest {

    static final String ACCEPT = "groupkeeper.api.accept";

    static final Path DIR = Path.of("api");

    @TestFactory
    Stream<DynamicTest> theExportedApiOfEachModuleMatchesItsSignatureFile() {
        return Arrays.stream(Modules.values()).map(m -> DynamicTest.dynamicTest(m.artifactId, () -> check(m)));
    }

    private static void check(Modules m) throws IOException {
        List<String> actual = listing(m);
        Path file = DIR.resolve(m.artifactId.substring("groupkeeper-".length()) + ".api");
        if (Boolean.getBoolean(ACCEPT)) {
            Files.createDirectories(DIR);
            Files.write(file, actual, StandardCharsets.UTF_8);
            return;
        }
        List<String> expected = Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
        String diff = diff(expected, actual);
        if (!diff.isEmpty()) {
            throw new AssertionError(String.format(
                    "the exported public API of %s differs from %s:%n%s%nIf the change"
                            + " is meant, review it and accept it (rewrites the files; commit them):%n  mvn -B -o -q -pl"
                            + " architecture-tests -am verify -Dtest=PublicApiTest -Dsurefire.failIfNoSpecifiedTests=false"
                            + " -D%s=true%n",
                    m.artifactId, file.toAbsolutePath().normalize(), diff, ACCEPT));
        }
    }

    /** Lines only in {@code expected} as "- ", lines only in {@code actual} as "+ "; empty when equal. */
    static String diff(List<String> expected, List<String> actual) {
        Set<String> was = new TreeSet<>(expected);
        Set<String> is = new TreeSet<>(actual);
        List<String> out = new ArrayList<>();
        was.stream().filter(l -> !is.contains(l)).forEach(l -> out.add("- " + l));
        is.stream().filter(l -> !was.contains(l)).forEach(l -> out.add("+ " + l));
        out.sort((a, b) -> a.substring(2).compareTo(b.substring(2)));
        return String.join(System.lineSeparator(), out);
    }

    /** The listing of {@code m}'s exported API, sorted. From the class files (ArchUnit): nothing is loaded. */
    static List<String> listing(Modules m) {
        TreeSet<String> lines = new TreeSet<>();
        Optional<ModuleDescriptor> descriptor = Optional.empty();
        boolean read = false;
        for (JavaClass c : Modules.CLASSES) {
            if (Modules.from(c).orElse(null) != m || !ArchitectureTest.isApi(c)) {
                continue;
            }
            String source = c.getSource().map(s -> s.getUri().toString()).orElse("");
            if (source.contains("/.m2/repository/")) {
                throw new AssertionError(c.getName() + " was read from the local repository (" + source + "), not from"
                        + " this checkout: run with -am so that the reactor builds every module");
            }
            if (!read) {
                descriptor = descriptorOf(c);
                read = true;
            }
            if (exported(descriptor, c.getPackageName())) {
                lines.addAll(signatures(c));
            }
        }
        return new ArrayList<>(lines);
    }

    private static boolean exported(Optional<ModuleDescriptor> descriptor, String pkg) {
        return descriptor
                .map(d -> d.exports().stream()
                        .anyMatch(e -> !e.isQualified() && e.source().equals(pkg)))
                .orElse(!pkg.endsWith(".internal") && !pkg.contains(".internal."));
    }

    /** The type's line and one line per public or protected member it declares. */
    static List<String> signatures(JavaClass c) {
        List<String> out = new ArrayList<>();
        String name = c.getName();
        out.add(name + " : " + typeLine(c));
        Stream.of(c.getConstructors(), c.getMethods(), c.getFields())
                .flatMap(Set::stream)
                .filter(mb -> visible(mb.getModifiers()))
                .forEach(mb -> out.add(name + " : " + memberLine(mb)));
        return out;
    }

    private static boolean visible(Set<JavaModifier> mod) {
        return !mod.contains(JavaModifier.SYNTHETIC)
                && !mod.contains(JavaModifier.BRIDGE)
                && (mod.contains(JavaModifier.PUBLIC) || mod.contains(JavaModifier.PROTECTED));
    }

    private static final List<JavaModifier> ORDER = List.of(
            JavaModifier.PUBLIC,
            JavaModifier.PROTECTED,
            JavaModifier.ABSTRACT,
            JavaModifier.STATIC,
            JavaModifier.FINAL,
            JavaModifier.VOLATILE,
            JavaModifier.TRANSIENT,
            JavaModifier.SYNCHRONIZED);

    private static String modifiers(Set<JavaModifier> mod, boolean keepAbstractAndFinal) {
        return ORDER.stream()
                .filter(mod::contains)
                .filter(x -> keepAbstractAndFinal
                        || x != JavaModifier.ABSTRACT && x != JavaModifier.FINAL && x != JavaModifier.STATIC)
                .map(x -> x.name().toLowerCase(Locale.ROOT) + " ")
                .collect(Collectors.joining());
    }

    private static String typeLine(JavaClass c) {
        String kind = c.isAnnotation()
                ? "@interface"
                : c.isInterface() ? "interface" : c.isEnum() ? "enum" : c.isRecord() ? "record" : "class";
        boolean plain = kind.equals("class");
        StringBuilder b = new StringBuilder(modifiers(c.getModifiers(), plain)).append(kind);
        b.append(typeParameters(c.getTypeParameters()));
        c.getSuperclass()
                .filter(t -> plain && !t.getName().equals("java.lang.Object"))
                .ifPresent(t -> b.append(" extends ").append(t.getName()));
        List<String> interfaces = c.getInterfaces().stream()
                .map(JavaType::getName)
                .sorted()
                .filter(i -> !c.isAnnotation() || !i.equals("java.lang.annotation.Annotation"))
                .toList();
        if (!interfaces.isEmpty()) {
            b.append(c.isInterface() ? " extends " : " implements ").append(String.join(", ", interfaces));
        }
        return b.toString();
    }

    private static String typeParameters(List<? extends JavaTypeVariable<?>> vars) {
        if (vars.isEmpty()) {
            return "";
        }
        return vars.stream()
                .map(v -> {
                    List<String> bounds = v.getUpperBounds().stream()
                            .map(JavaType::getName)
                            .filter(n -> !n.equals("java.lang.Object"))
                            .toList();
                    return v.getName() + (bounds.isEmpty() ? "" : " extends " + String.join(" & ", bounds));
                })
                .collect(Collectors.joining(", ", "<", ">"));
    }

    /** The member's signature: {@code public abstract void start()}, {@code public static final int MAX}. */
    private static String memberLine(JavaMember m) {
        String mods = modifiers(m.getModifiers(), true);
        if (m instanceof JavaField f) {
            return mods + f.getType().getName() + " " + f.getName();
        }
        JavaCodeUnit u = (JavaCodeUnit) m;
        String params = u.getParameterTypes().stream().map(JavaType::getName).collect(Collectors.joining(", "));
        String throwsClause = u.getThrowsClause().getTypes().stream()
                .map(JavaClass::getName)
                .sorted()
                .collect(Collectors.joining(", "));
        String head = mods
                + typeParameters(u.getTypeParameters())
                + (u.getTypeParameters().isEmpty() ? "" : " ");
        String name =
                u instanceof JavaConstructor ? "<init>" : u.getReturnType().getName() + " " + u.getName();
        return head + name + "(" + params + ")" + (throwsClause.isEmpty() ? "" : " throws " + throwsClause);
    }

    /** The module descriptor beside {@code c}'s class file (a classes directory or a jar), if it has one. */
    private static Optional<ModuleDescriptor> descriptorOf(JavaClass c) {
        String uri = c.getSource().orElseThrow().getUri().toString();
        String classFile = c.getName().replace('.', '/') + ".class";
        try {
            if (uri.startsWith("jar:")) {
                String jarPath = uri.substring("jar:".length(), uri.indexOf("!/"));
                try (JarFile jar = new JarFile(Path.of(new URI(jarPath)).toFile())) {
                    var entry = jar.getEntry("module-info.class");
                    if (entry == null) {
                        return Optional.empty();
                    }
                    try (InputStream in = jar.getInputStream(entry)) {
                        return Optional.of(ModuleDescriptor.read(in));
                    }
                }
            }
            Path info = Path.of(new URI(uri.substring(0, uri.length() - classFile.length())))
                    .resolve("module-info.class");
            if (!Files.exists(info)) {
                return Optional.empty();
            }
            try (InputStream in = Files.newInputStream(info)) {
                return Optional.of(ModuleDescriptor.read(in));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
