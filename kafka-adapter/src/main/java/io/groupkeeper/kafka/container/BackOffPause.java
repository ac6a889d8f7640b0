package io.groupkeeper.kafka.container;

/**
 * Marks an exception a handler throws for a record that is not due yet (a scheduled retry, as the Spring Boot
 * starter's retry topics throw one): no failure of the handler. The error policy's action for it applies as for any
 * exception (a retry topic's: stop the partition, which its caller resumes when the record is due), and it counts in
 * the handler-failure meter, but the container logs the call and the stopped partition at DEBUG, not WARN.
 */
public interface BackOffPause {}
