/**
 * Per-partition progress for processing beyond one record at a time per partition (issue 46): what is fetched, in
 * flight, done, retried and owed, dispatching as a function of that state, and the encoding of the done set for the
 * offset node. Pure logic: no Kafka client, no store, no threads, no clock (time is passed in). The listener
 * container drives it ({@code ProgressDispatch}); {@code docs/parallel.md} says what is wired and what is not.
 */
package io.groupkeeper.kafka.container.internal.progress;
