package io.groupkeeper.spring.differential.retry;

import io.groupkeeper.spring.GroupKeeperListener;
import java.io.IOException;
import java.io.InputStream;
import org.springframework.asm.AnnotationVisitor;
import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.ClassWriter;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.SpringAsmInfo;
import org.springframework.asm.Type;
import org.springframework.kafka.annotation.KafkaListener;

/**
 * The change docs/spring-boot.md asks of a migrated listener, made by the test on the compiled class: every
 * {@code @KafkaListener(id, groupId, topics)} on a method becomes {@code @GroupKeeperListener(id, group, topics)};
 * everything else of the class (other annotations, the code) stays byte for byte. The result is defined by a class
 * loader of its own under the same name.
 */
public final class AnnotationSwap {

    private static final String FROM = Type.getDescriptor(KafkaListener.class);
    private static final String TO = Type.getDescriptor(GroupKeeperListener.class);

    private AnnotationSwap() {
    }

    /** {@code listener} with its {@code @KafkaListener} methods annotated {@code @GroupKeeperListener} instead. */
    public static Class<?> toGroupKeeper(Class<?> listener) {
        byte[] original;
        try (InputStream in = listener.getResourceAsStream(listener.getSimpleName() + ".class")) {
            original = in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + listener, e);
        }
        ClassWriter out = new ClassWriter(0);
        int[] swapped = {0};
        new ClassReader(original).accept(new ClassVisitor(SpringAsmInfo.ASM_VERSION, out) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                return new MethodVisitor(SpringAsmInfo.ASM_VERSION,
                        super.visitMethod(access, name, descriptor, signature, exceptions)) {
                    @Override
                    public AnnotationVisitor visitAnnotation(String desc, boolean visible) {
                        if (!FROM.equals(desc)) {
                            return super.visitAnnotation(desc, visible);
                        }
                        swapped[0]++;
                        return new AnnotationVisitor(SpringAsmInfo.ASM_VERSION, super.visitAnnotation(TO, visible)) {
                            @Override
                            public void visit(String attribute, Object value) {
                                super.visit("groupId".equals(attribute) ? "group" : attribute, value);
                            }

                            @Override
                            public AnnotationVisitor visitArray(String attribute) {
                                return super.visitArray("groupId".equals(attribute) ? "group" : attribute);
                            }
                        };
                    }
                };
            }
        }, 0);
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
}
