package io.purgatory.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.KeyedWaits;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Only a keyed wait's own future is taken for a wait: never a stage derived from it, nor any other. */
class WaitFuturesTest {

    @Test
    void isWait_anyObject_trueOnlyForTheFuturesThatKeyedWaitsReturn() {
        try (KeyedWaits<String, String> waits = KeyedWaits.builder("w").build()) {
            CompletableFuture<String> wait = waits.await("k", Duration.ofMinutes(1));
            CompletableFuture<String> fallback = waits.on("k").orElse("none").await(Duration.ofMinutes(1));

            assertThat(KeyedWaits.isWait(wait)).isTrue();
            assertThat(KeyedWaits.isWait(fallback)).isTrue();
            assertThat(KeyedWaits.isWait(wait.thenApply(String::length))).isFalse();
            assertThat(KeyedWaits.isWait(new CompletableFuture<String>())).isFalse();
            assertThat(KeyedWaits.isWait("not a future")).isFalse();
            assertThat(KeyedWaits.isWait(null)).isFalse();
        }
    }
}
