package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Closes nested in code the library called, and what a close keeps once it returned: promises 1,
 * 3 and 7 of docs/reliability.md, and its "Reachability" (neither the purgatory nor a settled
 * operation holds anything that settled). Hangs are caught by bounded waits, not by timing.
 */
class CloseNestingTest {

    private static final int PENDING = 50;
    private static final int PAYLOAD_BYTES = 256 * 1024;

    // ---- what a close from a callback keeps (Closing N5's `swept`) ----

    /*
     * docs/reliability.md, "Reachability": "neither the purgatory nor a settled operation the
     * application keeps holds anything that settled". A close from a callback waits for nothing,
     * so it never sees what its sweep found finished, and Closing keeps that list in `swept` for a
     * later close: the closed purgatory, which the application still holds, keeps every operation
     * the close settled (and their payloads) reachable for as long as it lives.
     */
    @Test
    void close_fromACallback_theClosedPurgatoryHoldsNoneOfTheOperationsItSettled() {
        ManualTimer timer = new ManualTimer();
        DelayedOperationPurgatory<Payload> purgatory = DelayedOperationPurgatory.<Payload>builder("keeps-swept")
                .timer(timer).reaperEnabled(false).build();
        try {
            List<WeakReference<Payload>> refs = new ArrayList<>();
            for (int i = 0; i < PENDING; i++) {
                Payload op = new Payload();
                purgatory.tryCompleteElseWatch(op, List.of("k"));
                refs.add(new WeakReference<>(op));
            }
            Payload closer = new Payload();
            closer.completeHook = purgatory::close;
            purgatory.tryCompleteElseWatch(closer, List.of("closer"));

            assertThat(closer.forceComplete()).isTrue(); // its onComplete closes the purgatory, waiting for nothing

            assertThat(purgatory.isClosed()).isTrue();
            assertThat(refs.stream().map(WeakReference::get).filter(op -> op != null && op.isCompleted()).count())
                    .as("each pending operation answered by the close").isEqualTo(PENDING);
            assertCollected(timer, refs);
        } finally {
            purgatory.close();
            timer.close();
        }
    }

    // ---- helpers ----

    /** The timer drops its cancelled entries at its next turn; then no settled operation is reachable. */
    private static void assertCollected(ManualTimer timer, List<WeakReference<Payload>> refs) {
        timer.advanceClock(0);
        for (int i = 0; i < 10 && refs.stream().anyMatch(ref -> ref.get() != null); i++) {
            System.gc();
        }
        long alive = refs.stream().filter(ref -> ref.get() != null).count();
        assertThat(alive).as("settled operations the closed purgatory still holds").isZero();
    }

    static List<String> warnings(LogCapture log) {
        return log.events().stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .map(ILoggingEvent::getFormattedMessage).toList();
    }

    /** An operation holding a payload, as a request context would. */
    static final class Payload extends HookOp {
        final byte[] payload = new byte[PAYLOAD_BYTES];

        Payload() {
            super(60_000);
        }
    }
}
