package io.groupkeeper.benchmarks.support;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * The JIT compiler's accumulated compilation time. The side-by-side harness runs servers, producer and every client
 * in one JVM on 2 cores: while C2 still compiles (it can take a full core for a minute after start), each repetition
 * measures the compiler as much as the protocol. Reading this before and after a repetition says how busy it was.
 */
public final class Jit {

    private static final CompilationMXBean BEAN = ManagementFactory.getCompilationMXBean();

    private Jit() {
    }

    /** Milliseconds the JIT has spent compiling since the JVM started, or -1 where the JVM does not say. */
    public static long compileMs() {
        return BEAN != null && BEAN.isCompilationTimeMonitoringSupported() ? BEAN.getTotalCompilationTime() : -1;
    }
}
