package io.groupkeeper.benchmarks.throughput;

/** One way of reading the input (and, for the read-process-write contenders, writing the output). */
@FunctionalInterface
interface Contender {

    /** Runs on {@code run}'s input until the contender's end point; measures with {@link Run#result} before closing. */
    Run.Result run(Run run) throws Exception;
}
