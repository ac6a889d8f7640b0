package io.groupkeeper.spring.differential;

import io.groupkeeper.spring.GroupKeeperListener;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.springframework.asm.AnnotationVisitor;
import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.ClassWriter;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.SpringAsmInfo;
import org.springframework.asm.Type;
import org.springframework.kafka.annotation.KafkaListener;

/**
 * The differential suite's one annotation swap: the change docs/spring-boot.md asks of a migrated listener, made by
 * the test rather than by hand, on the compiled class. Every {@code @KafkaListener(id, groupId, topics)} on a method
 * becomes {@code @GroupKeeperListener(id, group, topics)} (an {@code id} without {@code groupId} is the group on both:
 * Spring's {@code idIsGroup}, the starter's default); everything else of the class (other annotations, the code) stays
 * byte for byte. The result is defined by a class loader of its own under the same name. A listener kept as source
 * text is first compiled as it is ({@link #compile}), then swapped like any other class.
 */
public final class AnnotationSwap {

    private static final String FROM = Type.getDescriptor(KafkaListener.class);
    private static final String TO = Type.getDescriptor(GroupKeeperListener.class);

    private AnnotationSwap() {}

    /** {@code listener} with its {@code @KafkaListener} methods annotated {@code @GroupKeeperListener} instead. */
    public static Class<?> toGroupKeeper(Class<?> listener) {
        byte[] original;
        String file = listener.getName().substring(listener.getName().lastIndexOf('.') + 1) + ".class";
        try (InputStream in = listener.getResourceAsStream(file)) {
            original = in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + listener, e);
        }
        ClassWriter out = new ClassWriter(0);
        int[] swapped = {0};
        new ClassReader(original)
                .accept(
                        new ClassVisitor(SpringAsmInfo.ASM_VERSION, out) {
                            @Override
                            public MethodVisitor visitMethod(
                                    int access, String name, String descriptor, String signature, String[] exceptions) {
                                return new MethodVisitor(
                                        SpringAsmInfo.ASM_VERSION,
                                        super.visitMethod(access, name, descriptor, signature, exceptions)) {
                                    @Override
                                    public AnnotationVisitor visitAnnotation(String desc, boolean visible) {
                                        if (!FROM.equals(desc)) {
                                            return super.visitAnnotation(desc, visible);
                                        }
                                        swapped[0]++;
                                        return new AnnotationVisitor(
                                                SpringAsmInfo.ASM_VERSION, super.visitAnnotation(TO, visible)) {
                                            @Override
                                            public void visit(String attribute, Object value) {
                                                super.visit("groupId".equals(attribute) ? "group" : attribute, value);
                                            }

                                            @Override
                                            public AnnotationVisitor visitArray(String attribute) {
                                                return super.visitArray(
                                                        "groupId".equals(attribute) ? "group" : attribute);
                                            }
                                        };
                                    }
                                };
                            }
                        },
                        0);
        if (swapped[0] == 0) {
            throw new IllegalStateException(listener + " has no @KafkaListener method");
        }
        byte[] bytes = out.toByteArray();
        ClassLoader parent = listener.getClassLoader();
        ClassLoader own = new ClassLoader(parent) {
            private Class<?> defined;

            @Override
            protected synchronized Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (name.equals(listener.getName())) {
                    if (defined == null) {
                        defined = defineClass(name, bytes, 0, bytes.length);
                    }
                    return defined;
                }
                return super.loadClass(name, resolve);
            }
        };
        try {
            return own.loadClass(listener.getName());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Compiles {@code source} (one public class {@code className}, Spring Kafka's {@code @KafkaListener} as written)
     * with the JDK's compiler against the test class path and loads the class in a class loader of its own.
     */
    public static Class<?> compile(String className, String source) {
        try {
            Path dir = Files.createTempDirectory("differential");
            Path file = dir.resolve(className.replace('.', '/') + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, source);
            String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            ByteArrayOutputStream errors = new ByteArrayOutputStream();
            int rc = javac.run(
                    null,
                    null,
                    errors,
                    "-parameters",
                    "-proc:none",
                    "-cp",
                    classpath,
                    "-d",
                    dir.toString(),
                    file.toString());
            if (rc != 0) {
                throw new IllegalStateException("the listener source does not compile:\n" + errors + "\n" + source);
            }
            URLClassLoader loader =
                    new URLClassLoader(new URL[] {dir.toUri().toURL()}, AnnotationSwap.class.getClassLoader());
            return loader.loadClass(className);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
