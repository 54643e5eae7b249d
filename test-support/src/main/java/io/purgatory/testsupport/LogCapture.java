package io.purgatory.testsupport;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Captures one logger's events, and keeps them off the console, while it is open: a test that
 * expects a log line asserts it instead of printing it. Thread-safe to read while events arrive.
 */
public final class LogCapture implements AutoCloseable {

    private final Logger logger;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
    private final boolean additive;
    private final Level level;

    /** Captures the logger named after {@code loggerClass}. */
    public LogCapture(Class<?> loggerClass) {
        this(loggerClass.getName(), null);
    }

    /** Captures the logger named after {@code loggerClass}, at {@code level} and above (restored on close). */
    public LogCapture(Class<?> loggerClass, Level level) {
        this(loggerClass.getName(), level);
    }

    /** Captures the logger named {@code loggerName}. */
    public LogCapture(String loggerName) {
        this(loggerName, null);
    }

    private LogCapture(String loggerName, Level level) {
        this.logger = (Logger) LoggerFactory.getLogger(loggerName);
        this.additive = logger.isAdditive();
        this.level = logger.getLevel();
        if (level != null) {
            logger.setLevel(level);
        }
        appender.start();
        logger.addAppender(appender);
        logger.setAdditive(false);
    }

    /** The events captured so far, in order. */
    public List<ILoggingEvent> events() {
        synchronized (appender) {
            return List.copyOf(appender.list);
        }
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        logger.setAdditive(additive);
        logger.setLevel(level);
        appender.stop();
    }
}
