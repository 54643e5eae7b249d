package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.OperationErrorHandler.Callback;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** One error handler set for the whole process reaches every purgatory and keyed wait without one of its own. */
class ProcessErrorHandlerTest {

    @Test
    void setProcessDefault_reachesPurgatoriesBuiltBeforeAndAfter_butNotOneWithItsOwnHandler() {
        List<String> reported = new CopyOnWriteArrayList<>();
        List<String> own = new CopyOnWriteArrayList<>();
        try (ManualTimer timer = new ManualTimer()) {
            DelayedOperationPurgatory<MockOperation> before = build("before", timer, null);
            OperationErrorHandler previous = OperationErrorHandler.setProcessDefault(
                    (name, op, callback, error) -> reported.add(name + ":" + callback.methodName() + ":"
                            + error.getMessage()));
            try {
                DelayedOperationPurgatory<MockOperation> after = build("after", timer, null);
                DelayedOperationPurgatory<MockOperation> mine = build("mine", timer,
                        (name, op, callback, error) -> own.add(name));
                KeyedWaits<String, String> waits = KeyedWaits.builder("waits").timer(timer).build();

                for (DelayedOperationPurgatory<MockOperation> p : List.of(before, after, mine)) {
                    MockOperation op = throwingOnComplete();
                    p.tryCompleteElseWatch(op, List.of("k"));
                    op.completable = true;
                    assertThat(p.checkAndComplete("k")).isEqualTo(1);
                }
                var wait = waits.await("order-1", Duration.ofSeconds(5), v -> {
                    throw new IllegalArgumentException("bad predicate");
                });
                waits.complete("order-1", "PAID");
                assertThat(wait).as("a throwing predicate is a 'not yet'").isNotDone();

                assertThat(reported).containsExactly("before:onComplete:boom", "after:onComplete:boom",
                        "waits:tryComplete:bad predicate");
                assertThat(own).containsExactly("mine");
                for (AutoCloseable c : List.<AutoCloseable>of(before, after, mine, waits)) {
                    c.close();
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            } finally {
                OperationErrorHandler.setProcessDefault(previous);
            }
        }
    }

    @Test
    void setProcessDefault_badInput_throwsNamingTheArgument() {
        assertThatThrownBy(() -> OperationErrorHandler.setProcessDefault(null))
                .isInstanceOf(NullPointerException.class).hasMessage("handler");
        assertThatThrownBy(() -> OperationErrorHandler.setProcessDefault(OperationErrorHandler.processDefault()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("handler");
        assertThat(Callback.values()).isNotEmpty();
    }

    private static DelayedOperationPurgatory<MockOperation> build(String name, ManualTimer timer,
                                                                OperationErrorHandler handler) {
        PurgatoryBuilder<MockOperation> b = DelayedOperationPurgatory.<MockOperation>builder(name).timer(timer)
                .reaperEnabled(false);
        if (handler != null) {
            b.errorHandler(handler);
        }
        return b.build();
    }

    private static MockOperation throwingOnComplete() {
        return new MockOperation(1_000) {
            @Override
            public void onComplete() {
                throw new IllegalStateException("boom");
            }
        };
    }
}
