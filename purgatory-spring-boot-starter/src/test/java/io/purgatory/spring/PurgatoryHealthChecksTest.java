package io.purgatory.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.KeyedWaits;
import io.purgatory.PurgatoryFullException;
import io.purgatory.spring.health.Check.Status;
import io.purgatory.spring.health.Check;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/** The health check of a purgatory that rejects for capacity, on a clock the test moves. */
class PurgatoryHealthChecksTest {

    private static final Duration WINDOW = Duration.ofMinutes(1);
    private final MovableClock clock = new MovableClock();
    private final DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
    private final KeyedWaits<String, String> waits = KeyedWaits.builder("payments").maxPending(1).build();
    private final PurgatoryHealthChecks health = new PurgatoryHealthChecks(beans, WINDOW, clock);

    PurgatoryHealthChecksTest() {
        beans.registerSingleton("paymentsBean", waits);
    }

    @AfterEach
    void close() {
        waits.close();
    }

    @Test
    void health_noRejection_isUp() {
        assertThat(health("payments").status()).isEqualTo(Status.UP);
        assertThat(health("payments").details()).containsEntry("rejected", 0L).containsEntry("pending", 0)
                .containsEntry("closed", false);
    }

    @Test
    void health_aRejection_isOutOfServiceForTheWindowAfterACheckSawIt() {
        health("payments");
        CompletableFuture<String> first = waits.await("a", Duration.ofMinutes(10));
        assertThatThrownBy(() -> waits.await("b", Duration.ofMinutes(10)).join())
                .hasCauseInstanceOf(PurgatoryFullException.class);

        assertThat(health("payments").status()).isEqualTo(Status.OUT_OF_SERVICE);
        assertThat(health("payments").details()).containsEntry("rejected", 1L)
                .containsEntry("rejectionSeenAt", clock.instant().toString());
        clock.advance(WINDOW.minusMillis(1));
        assertThat(health("payments").status()).isEqualTo(Status.OUT_OF_SERVICE);
        clock.advance(Duration.ofMillis(1));
        assertThat(health("payments").status()).isEqualTo(Status.UP);
        assertThat(first).isNotDone();
    }

    @Test
    void health_aNewRejection_startsTheWindowAgain() {
        var unused = waits.await("a", Duration.ofMinutes(10));
        assertThatThrownBy(() -> waits.await("b", Duration.ofMinutes(10)).join())
                .hasCauseInstanceOf(PurgatoryFullException.class);
        health("payments");
        clock.advance(WINDOW.minusSeconds(1));
        assertThatThrownBy(() -> waits.await("c", Duration.ofMinutes(10)).join())
                .hasCauseInstanceOf(PurgatoryFullException.class);
        health("payments");

        clock.advance(Duration.ofSeconds(1));

        assertThat(health("payments").status()).isEqualTo(Status.OUT_OF_SERVICE);
    }

    @Test
    void health_purgatoryClosed_isOutOfService() {
        waits.close();

        assertThat(health("payments").status()).isEqualTo(Status.OUT_OF_SERVICE);
        assertThat(health("payments").details()).containsEntry("closed", true);
    }

    @Test
    void contributors_purgatoryBeans_areThePurgatoriesByName() {
        assertThat(health.checkAll()).containsOnlyKeys("payments");
        assertThat(health.check("paymentsBean")).isNull();
    }

    private Check health(String name) {
        return health.check(name);
    }

    /** A clock that moves when the test says so. */
    private static final class MovableClock extends Clock {
        private Instant now = Instant.parse("2026-01-01T00:00:00Z");

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }
}
