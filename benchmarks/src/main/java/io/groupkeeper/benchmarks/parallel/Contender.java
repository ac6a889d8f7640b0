package io.groupkeeper.benchmarks.parallel;

/** One way of consuming with many workers: starts an instance that feeds every record to {@link Tally#handle}. */
@FunctionalInterface
interface Contender {

    Instance start(Setup setup, String group, Tally tally) throws Exception;
}
