package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Thousands of virtual threads each blocked on a keyed wait's future, answered by events and by
 * timeouts. Runs where the JDK has virtual threads (the purgatory module runs it again on the
 * machine's newer JDK, see its pom); skipped on JDK 17.
 */
class VirtualThreadsTest {

    private static final int THREADS = 5_000;

    @Test
    void await_thousandsOfVirtualThreadsBlocked_everyOneIsAnswered() throws Exception {
        ExecutorService virtualThreads = virtualThreadPerTaskExecutor();
        try (KeyedWaits<Integer, String> waits = KeyedWaits.builder("virtual").build()) {
            List<Future<String>> answers = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                int key = i;
                // even keys get an event; odd ones time out after 200 ms with a fallback
                answers.add(virtualThreads.submit(() -> key % 2 == 0
                        ? waits.await(key, Duration.ofMinutes(5)).get()
                        : waits.on(key).orElse("timeout").await(Duration.ofMillis(200)).get()));
            }
            int answered = 0;
            while (answered < THREADS / 2) { // a waiter may not have registered yet: hand events until all took one
                answered = 0;
                for (int key = 0; key < THREADS; key += 2) {
                    if (answers.get(key).isDone()) {
                        answered++;
                    } else {
                        waits.complete(key, "event-" + key);
                    }
                }
                Thread.onSpinWait();
            }
            for (int i = 0; i < THREADS; i++) {
                assertThat(answers.get(i).get(2, TimeUnit.MINUTES)).isEqualTo(i % 2 == 0 ? "event-" + i : "timeout");
            }
            assertThat(waits.pending()).isZero();
            assertThat(waits.stats().expired()).isEqualTo(THREADS / 2);
        } finally {
            shutdown(virtualThreads);
        }
    }

    @Test
    void close_virtualThreadBlockedOnAWait_isAnswered() throws Exception {
        ExecutorService virtualThreads = virtualThreadPerTaskExecutor();
        KeyedWaits<Integer, String> waits = KeyedWaits.builder("closing").build();
        try {
            Future<Throwable> blocked = virtualThreads.submit(() -> {
                try {
                    waits.await(1, Duration.ofMinutes(5)).get();
                    return null;
                } catch (ExecutionException e) {
                    return e.getCause();
                }
            });
            ReliabilitySupport.awaitCondition("the virtual thread's wait is pending", () -> waits.pending() > 0);
            waits.close();
            assertThat(blocked.get(2, TimeUnit.MINUTES)).isInstanceOf(TimeoutException.class);
        } finally {
            waits.close();
            shutdown(virtualThreads);
        }
    }

    private static void shutdown(ExecutorService executor) throws InterruptedException {
        executor.shutdownNow();
        assertThat(executor.awaitTermination(1, TimeUnit.MINUTES)).isTrue();
    }

    /** {@code Executors.newVirtualThreadPerTaskExecutor()} where the JDK has it; the test is skipped elsewhere. */
    private static ExecutorService virtualThreadPerTaskExecutor() throws ReflectiveOperationException {
        Method factory = null;
        try {
            factory = Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
        } catch (NoSuchMethodException absent) {
            // JDK 17-20: no virtual threads
        }
        assumeTrue(factory != null, "this JDK (" + Runtime.version() + ") has no virtual threads");
        return (ExecutorService) factory.invoke(null);
    }
}
