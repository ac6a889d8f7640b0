package io.groupkeeper.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in the repository's Markdown files resolves: the file or folder exists and, for a link into a
 * Markdown page with {@code #anchor}, the page has a heading with that anchor (GitHub's rule: lower case, punctuation
 * dropped, spaces as hyphens, {@code -1}, {@code -2} for repeated headings). Links inside fenced code blocks and to
 * other sites are not checked.
 */
class DocsLinksTest {

    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*)$");
    private static final Set<String> SKIPPED_FOLDERS = Set.of("target", "node_modules");

    private final Path root = Path.of("..").toAbsolutePath().normalize();
    private final Map<Path, Set<String>> anchors = new HashMap<>();

    @Test
    void everyRelativeLinkInTheDocsResolves() throws IOException {
        assertThat(root.resolve("README.md")).as("the repository root").exists();
        List<String> broken = new ArrayList<>();
        for (Path page : markdownFiles()) {
            String text = withoutCodeBlocks(Files.readString(page));
            Matcher m = LINK.matcher(text);
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
                    continue; // another site, mailto:
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path resolved =
                        file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                String where = root.relativize(page) + ": " + target;
                if (!Files.exists(resolved)) {
                    broken.add(where + " (no such file)");
                } else if (anchor != null
                        && resolved.toString().endsWith(".md")
                        && !anchorsOf(resolved).contains(anchor)) {
                    broken.add(where + " (no such heading)");
                }
            }
        }
        assertThat(broken)
                .as("broken relative links in the Markdown files under " + root)
                .isEmpty();
    }

    private List<Path> markdownFiles() throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(".md"))
                    .filter(p -> {
                        for (Path part : root.relativize(p)) {
                            String name = part.toString();
                            if (name.startsWith(".") || SKIPPED_FOLDERS.contains(name)) {
                                return false;
                            }
                        }
                        return true;
                    })
                    .sorted()
                    .toList();
        }
    }

    private Set<String> anchorsOf(Path page) {
        return anchors.computeIfAbsent(page, p -> {
            Set<String> found = new HashSet<>();
            Map<String, Integer> seen = new HashMap<>();
            try {
                for (String line : withoutCodeBlocks(Files.readString(p)).split("\n")) {
                    Matcher h = HEADING.matcher(line);
                    if (h.matches()) {
                        String slug = slug(h.group(1));
                        int n = seen.merge(slug, 1, Integer::sum) - 1;
                        found.add(n == 0 ? slug : slug + "-" + n);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return found;
        });
    }

    static String slug(String heading) {
        String plain = heading.replaceAll("[`*]", "").strip().toLowerCase(Locale.ROOT);
        return plain.replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
    }

    private static String withoutCodeBlocks(String text) {
        StringBuilder out = new StringBuilder();
        boolean fenced = false;
        for (String line : text.split("\n", -1)) {
            if (line.startsWith("```")) {
                fenced = !fenced;
                out.append('\n');
                continue;
            }
            out.append(fenced ? "" : line).append('\n');
        }
        return out.toString();
    }
}
