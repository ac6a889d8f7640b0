package io.groupkeeper.benchmarks.support;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * The JIT compiler's accumulated compilation time. The side-by-side harness runs servers, producer and every client
 * in one JVM on 2 cores: while C2 still compiles (it can take a full core for a minute after start), each repetition
 * measures the compiler as much as the protocol. Reading this before and after a repetition says how busy it was.
 * The process's CPU time says the same for the machine: a rebalance that used close to both cores for its whole
 * duration was waiting for CPU, not for ZooKeeper.
 */
public final class Jit {

    private static final CompilationMXBean BEAN = ManagementFactory.getCompilationMXBean();
    private static final OperatingSystemMXBean OS = ManagementFactory.getOperatingSystemMXBean();

    private Jit() {}

    /** Milliseconds the JIT has spent compiling since the JVM started, or -1 where the JVM does not say. */
    public static long compileMs() {
        return BEAN != null && BEAN.isCompilationTimeMonitoringSupported() ? BEAN.getTotalCompilationTime() : -1;
    }

    /**
     * CPU time this JVM has used (all its threads: servers, clients, compiler, GC), in nanoseconds, or -1 where the JVM
     * does not say. One clock read: cheap enough to take at every change a repetition observes.
     */
    public static long processCpuNanos() {
        return OS instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : -1;
    }
}
