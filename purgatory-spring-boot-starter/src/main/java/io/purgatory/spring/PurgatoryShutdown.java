package io.purgatory.spring;

import io.purgatory.PurgatoryRuntime;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanNameAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Settles every purgatory of the context when it stops: first the feeds that complete them (every
 * {@code KafkaFeed} bean, auto-configured or the application's: {@link PurgatoryFeeds}), then the
 * purgatory beans (keyed waits too), then the runtimes (which settle the purgatories built on them
 * and kept outside the context), each by its close policy. Every waiting caller gets its answer (a
 * keyed wait by default as at its timeout, with {@code WaitTimeoutException.closed()} true) while
 * the context is still whole.
 *
 * <p>When: in the phase of the web server's graceful shutdown, and after it has begun. Graceful
 * shutdown first stops the server taking requests (Tomcat closes its connectors before {@code
 * stop} returns; Reactor Netty closes its channel on its own thread), then waits for the requests
 * in progress, among them every long poll waiting in a purgatory. Closing the purgatories then
 * answers those, so the server finds itself idle at once instead of at its timeout. Within the
 * phase, the graceful-shutdown bean ({@value #GRACEFUL_SHUTDOWN_BEAN}, Spring Boot's {@code
 * WebServerGracefulShutdownLifecycle}, in another package on each Boot line: found by its bean
 * name) stops first because {@link #start()} registers it as a bean that depends on this one, and
 * {@code DefaultLifecycleProcessor} stops a bean's dependents before the bean. Without graceful
 * shutdown ({@code server.shutdown=immediate}, or no web server), the phase is still before the
 * web server stops ({@code WebServerStartStopLifecycle}) and before any bean is destroyed. Either
 * way, once the waits are closed, the shutdown waits (at most {@link #ANSWERS_BOUND}) until Spring
 * MVC has completed the requests that waited on them ({@link AnswersInFlight}), so that an
 * immediate stop of the server does not come first.
 */
final class PurgatoryShutdown implements SmartLifecycle, BeanFactoryAware, BeanNameAware {

    /**
     * The phase of the web server's graceful shutdown (it runs first, see the class comment):
     * {@code WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE} on Spring Boot 3 and 4.
     */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

    /** The bean name under which Spring Boot 3 and 4 register the web server's graceful shutdown. */
    static final String GRACEFUL_SHUTDOWN_BEAN = "webServerGracefulShutdown";

    private static final Logger LOG = LoggerFactory.getLogger(PurgatoryShutdown.class);

    /** How long the shutdown waits for the requests of the waits it closed to complete. */
    static final Duration ANSWERS_BOUND = Duration.ofSeconds(10);

    private final AnswersInFlight inFlight;
    private final ObjectProvider<PurgatoryFeeds> feeds;
    private ConfigurableListableBeanFactory beanFactory;
    private String beanName;
    private volatile boolean running;
    private volatile boolean begun;

    PurgatoryShutdown(AnswersInFlight inFlight, ObjectProvider<PurgatoryFeeds> feeds) {
        this.inFlight = inFlight;
        this.feeds = feeds;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
    }

    @Override
    public void setBeanName(String name) {
        this.beanName = name;
    }

    /**
     * Orders this bean's stop after the graceful shutdown's, in the same phase; checks that no two
     * purgatories share a name.
     *
     * @throws IllegalStateException if two purgatory beans have the same name
     */
    @Override
    public void start() {
        if (beanFactory.containsSingleton(GRACEFUL_SHUTDOWN_BEAN)) {
            beanFactory.registerDependentBean(beanName, GRACEFUL_SHUTDOWN_BEAN); // graceful stops first
        }
        new PurgatoryBeans(beanFactory).byName();
        running = true;
    }

    @Override
    public void stop() {
        begun = true;
        running = false;
        feeds.orderedStream().forEach(PurgatoryFeeds::closeFeeds); // before the waits they complete
        PurgatoryBeans beans = new PurgatoryBeans(beanFactory);
        for (PurgatoryBeans.Named bean : beans.all()) {
            try {
                bean.purgatory().close();
            } catch (RuntimeException | Error failure) {
                LOG.error("Closing purgatory '{}' (bean '{}') failed; closing the others", bean.purgatory().name(),
                        bean.bean(), failure);
            }
        }
        for (var runtime : beans.runtimes().entrySet()) {
            try {
                PurgatoryRuntime closing = runtime.getValue();
                closing.close();
            } catch (RuntimeException | Error failure) {
                LOG.error("Closing purgatory runtime bean '{}' failed; closing the others", runtime.getKey(), failure);
            }
        }
        awaitAnswers();
    }

    /** Lets the requests just answered complete before the web server may stop (see {@link AnswersInFlight}). */
    private void awaitAnswers() {
        try {
            int left = inFlight.awaitNone(ANSWERS_BOUND);
            if (left > 0) {
                LOG.warn("{} requests still wait on keyed waits that this shutdown did not close (neither beans nor"
                        + " on a runtime bean); the web server may cut them off", left);
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** True once {@link #stop()} has begun closing the purgatories (a later start does not undo it). */
    boolean hasBegun() {
        return begun;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
