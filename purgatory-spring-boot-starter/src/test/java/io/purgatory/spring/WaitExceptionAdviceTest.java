package io.purgatory.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.KeyedWaits;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The answer to a request that finds its waits closed: 503 once the shutdown began, not the advice's before. */
class WaitExceptionAdviceTest {

    private final AtomicBoolean shuttingDown = new AtomicBoolean();
    private final WaitExceptionAdvice advice = new WaitExceptionAdvice(shuttingDown::get);

    @Test
    void awaitOnClosedWaits_duringTheShutdown_is503() {
        KeyedWaits<String, String> waits = KeyedWaits.builder("w").build();
        waits.close();
        IllegalStateException closed = catchClosed(waits);
        shuttingDown.set(true);

        assertThat(advice.closed(closed).getStatusCode().value()).isEqualTo(503);
    }

    @Test
    void anIllegalStateException_beforeTheShutdown_isRethrownForTheNextHandler() {
        IllegalStateException other = new IllegalStateException("the application's own");

        assertThatThrownBy(() -> advice.closed(other)).isSameAs(other);
    }

    private static IllegalStateException catchClosed(KeyedWaits<String, String> waits) {
        try {
            waits.await("k", Duration.ofSeconds(1)).join();
        } catch (CompletionException failed) {
            if (failed.getCause() instanceof IllegalStateException closed) {
                return closed;
            }
        }
        throw new AssertionError("await on closed waits did not fail its future with IllegalStateException");
    }
}
