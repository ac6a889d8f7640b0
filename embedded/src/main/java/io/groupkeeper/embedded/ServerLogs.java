package io.groupkeeper.embedded;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Locale;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the chatty INFO logging of the in-process ZooKeeper server and Kafka broker down to WARN.
 *
 * <p>Both servers log through SLF4J (the broker's Scala code through scala-logging, which is SLF4J too), so the
 * levels are set on whatever SLF4J backend the application chose: logback-classic (levels are only set on
 * loggers that have no level configured yet, so a {@code logback.xml}/{@code logback-test.xml} entry always
 * wins) or slf4j-simple (through its {@code org.slf4j.simpleLogger.log.*} system properties, only those not
 * already set). With any other backend, or none (NOP), this does nothing. Loggers shared with clients
 * ({@code org.apache.kafka.clients}, {@code org.apache.kafka.common}, {@code org.apache.zookeeper.ClientCnxn},
 * Curator) are left alone, except {@code AbstractConfig}, whose INFO output is only the config dumps. A few
 * broker-internal lines from the shared packages still show; set them in your own logging config if needed.
 */
public final class ServerLogs {

    /** Logger-name prefixes used by the ZooKeeper server and the Kafka broker/controller only. */
    public static final List<String> SERVER_LOGGERS = List.of(
            // ZooKeeper server side
            "org.apache.zookeeper.server",
            "org.apache.zookeeper.audit",
            "org.apache.zookeeper.jmx",
            // Kafka broker + controller (Scala core and the Java server modules)
            "kafka",
            "state.change.logger",
            "org.apache.kafka.server",
            "org.apache.kafka.controller",
            "org.apache.kafka.raft",
            "org.apache.kafka.metadata",
            "org.apache.kafka.image",
            "org.apache.kafka.storage",
            "org.apache.kafka.coordinator",
            "org.apache.kafka.network",
            "org.apache.kafka.queue",
            "org.apache.kafka.snapshot",
            "org.apache.kafka.security",
            "org.apache.kafka.deferred",
            "org.apache.kafka.timeline",
            // Shared with clients, but at INFO it only dumps every config (hundreds of lines per broker start).
            "org.apache.kafka.common.config.AbstractConfig");

    private static final Logger LOG = LoggerFactory.getLogger(ServerLogs.class);

    private ServerLogs() {}

    /** Sets {@link #SERVER_LOGGERS} to WARN unless the application configured them; safe to call repeatedly. */
    public static void quiet() {
        setLevelIfUnset(SERVER_LOGGERS, "WARN");
    }

    /** Sets each logger to {@code level} (TRACE..ERROR) unless the application already configured it. */
    public static void setLevelIfUnset(List<String> loggerNames, String level) {
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        String backend = factory.getClass().getName();
        try {
            if (backend.startsWith("ch.qos.logback.classic.")) {
                logback(factory, loggerNames, level);
            } else if (backend.startsWith("org.slf4j.simple.")) {
                for (String name : loggerNames) {
                    String key = "org.slf4j.simpleLogger.log." + name;
                    if (System.getProperty(key) == null) {
                        System.setProperty(key, level.toLowerCase(Locale.ROOT));
                    }
                }
            } else {
                LOG.debug("SLF4J backend {} is not supported for quieting server logs; leaving levels alone", backend);
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.debug("could not quiet server logs on backend {}", backend, e);
        }
    }

    private static void logback(ILoggerFactory factory, List<String> names, String level)
            throws ReflectiveOperationException {
        ClassLoader cl = factory.getClass().getClassLoader();
        Class<?> levelClass = Class.forName("ch.qos.logback.classic.Level", false, cl);
        Object target = levelClass.getMethod("toLevel", String.class).invoke(null, level);
        for (String name : names) {
            Object logger = factory.getLogger(name);
            Method getLevel = logger.getClass().getMethod("getLevel");
            if (getLevel.invoke(logger) == null) {
                logger.getClass().getMethod("setLevel", levelClass).invoke(logger, target);
            }
        }
    }
}
