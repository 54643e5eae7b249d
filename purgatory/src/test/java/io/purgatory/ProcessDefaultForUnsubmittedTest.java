package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.testsupport.LogCapture;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The failures of operations never submitted (ErrorHandlers, UserCode's {@code unsubmitted}): they
 * are logged with the logging handler's line until ErrorHandlers is loaded, then reach the process
 * default, whatever that handler does (rethrows an Error, replaces itself, reports to
 * processDefault() through a wrapper), and the operation settles once with its callbacks
 * (promise 1). The class-loading order is checked in a class loader of its own, where no
 * purgatory was ever built.
 */
class ProcessDefaultForUnsubmittedTest {

    /** Never submitted; its onComplete throws. */
    public static final class Throwing extends DelayedOperation {
        public final AtomicInteger onCompleteCalls = new AtomicInteger();

        public Throwing() {
            super(1_000);
        }

        @Override
        protected boolean tryComplete() {
            return false;
        }

        @Override
        protected void onComplete() {
            onCompleteCalls.incrementAndGet();
            throw new IllegalStateException("boom");
        }

        @Override
        protected void onExpiration() {
        }
    }

    @Test
    void forceComplete_ofAnUnsubmittedOperationBeforeAnyPurgatoryIsBuilt_logsThenReachesTheProcessDefaultOnceSet()
            throws Exception {
        try (IsolatedLoader loader = new IsolatedLoader();
             LogCapture log = new LogCapture("io.purgatory.DelayedOperationPurgatory")) {
            Class<?> opClass = loader.loadClass(Throwing.class.getName());
            Object first = opClass.getConstructor().newInstance();
            assertThat(opClass.getMethod("forceComplete").invoke(first)).isEqualTo(true);
            assertThat(loader.isLoaded("io.purgatory.ErrorHandlers")).as("nothing loaded ErrorHandlers yet").isFalse();
            assertThat(log.events()).singleElement().satisfies(e ->
                    assertThat(e.getFormattedMessage()).contains("'(none)'", "onComplete"));

            List<String> reported = new CopyOnWriteArrayList<>();
            Class<?> handlerType = loader.loadClass(OperationErrorHandler.class.getName());
            Object handler = Proxy.newProxyInstance(loader, new Class<?>[] {handlerType}, (proxy, method, args) -> {
                if (method.getName().equals("onError")) {
                    reported.add(args[0] + ":" + args[2] + ":" + ((Throwable) args[3]).getMessage());
                    return null;
                }
                return method.invoke(this, args); // toString, hashCode, equals: not called here
            });
            handlerType.getMethod("setProcessDefault", handlerType).invoke(null, handler);
            Object second = opClass.getConstructor().newInstance();
            assertThat(opClass.getMethod("forceComplete").invoke(second)).isEqualTo(true);

            assertThat(reported).containsExactly("(none):ON_COMPLETE:boom");
            assertThat(log.events()).as("the second went to the process default, not the log").hasSize(1);
        }
    }

    @Test
    void processDefault_aHandlerThatThrowsAnErrorReplacesItselfOrReportsToProcessDefault_isContainedEachTime() {
        List<String> replacement = new CopyOnWriteArrayList<>();
        OperationErrorHandler wrapsTheDefault = (p, op, cb, e) -> OperationErrorHandler.processDefault()
                .onError(p, op, cb, e);
        OperationErrorHandler throwsAnError = (p, op, cb, e) -> {
            throw new AssertionError("handler failed");
        };
        OperationErrorHandler replacesItself = (p, op, cb, e) -> OperationErrorHandler.setProcessDefault(
                (p2, op2, cb2, e2) -> replacement.add(p2 + ":" + cb2.methodName()));
        OperationErrorHandler previous = OperationErrorHandler.setProcessDefault(wrapsTheDefault);
        try (LogCapture log = new LogCapture("io.purgatory.DelayedOperationPurgatory")) {
            List<Throwing> ops = List.of(new Throwing(), new Throwing(), new Throwing(), new Throwing());
            assertThat(ops.get(0).forceComplete()).isTrue(); // reports to itself until the stack runs out
            OperationErrorHandler.setProcessDefault(throwsAnError);
            assertThat(ops.get(1).forceComplete()).isTrue();
            OperationErrorHandler.setProcessDefault(replacesItself);
            assertThat(ops.get(2).forceComplete()).isTrue();
            assertThat(ops.get(3).forceComplete()).isTrue();

            assertThat(ops).allSatisfy(op -> {
                assertThat(op.onCompleteCalls).hasValue(1);
                assertThat(op.outcome()).isEqualTo(Outcome.COMPLETED);
            });
            assertThat(replacement).containsExactly("(none):onComplete");
            assertThat(log.events()).as("the two handler failures, each logged once").hasSize(2)
                    .allSatisfy(e -> assertThat(e.getFormattedMessage()).contains("error handler threw"));
        } finally {
            OperationErrorHandler.setProcessDefault(previous);
        }
    }

    /**
     * Loads this library's classes (and {@link Throwing}) afresh, child first; the rest (SLF4J,
     * the JDK) from the test's class loader.
     */
    private static final class IsolatedLoader extends URLClassLoader {

        IsolatedLoader() throws Exception {
            super(urls(), ProcessDefaultForUnsubmittedTest.class.getClassLoader());
        }

        private static URL[] urls() throws Exception {
            Path main = Path.of(DelayedOperation.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path timer = Path.of(io.purgatory.timer.Timer.class.getProtectionDomain().getCodeSource().getLocation()
                    .toURI());
            Path test = Path.of(Throwing.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return new URL[] {main.toUri().toURL(), timer.toUri().toURL(), test.toUri().toURL()};
        }

        boolean isLoaded(String name) {
            return findLoadedClass(name) != null;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                boolean ours = name.startsWith("io.purgatory.") && !name.startsWith("io.purgatory.testsupport.")
                        && (!name.startsWith(ProcessDefaultForUnsubmittedTest.class.getName())
                        || name.equals(Throwing.class.getName()));
                if (!ours) {
                    return super.loadClass(name, resolve);
                }
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = findClass(name);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }
}
