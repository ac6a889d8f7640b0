package io.groupkeeper.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/** Directory helpers shared by the embedded servers. */
final class Dirs {

    private Dirs() {}

    static Path createTemp(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a temporary directory " + prefix + "*", e);
        }
    }

    /** Creates {@code dir} (and parents) if needed; fails if it exists and is not a directory. */
    static Path ensureDirectory(String option, Path dir) {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new IllegalArgumentException(option + " must be a directory, but " + dir + " is a file");
        }
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("could not create " + option + " " + dir, e);
        }
    }

    /** Deletes {@code dir} recursively; a missing directory is fine. */
    static void deleteRecursively(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException exc) throws IOException {
                if (exc instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw exc;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
                if (exc != null && !(exc instanceof NoSuchFileException)) {
                    throw exc;
                }
                deleteIfExists(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void deleteIfExists(Path p) throws IOException {
        Files.deleteIfExists(p);
    }
}
