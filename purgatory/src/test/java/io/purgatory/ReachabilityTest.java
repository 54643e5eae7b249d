package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.internal.EngineInternals;
import io.purgatory.timer.ManualTimer;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 17, defect 4: "nothing lingers" holds for reachability through a settled operation the
 * application keeps (a request context, a log entry), not only through the purgatory. Before the
 * fix, unlinked nodes kept their `next`, so one retained settled operation kept every operation
 * watched on its key after it reachable: 200 of 200 in this test.
 */
class ReachabilityTest {

    private static final int LATER = 200;
    private static final int PAYLOAD_BYTES = 256 * 1024;

    private final ManualTimer timer = new ManualTimer();
    private final DelayedOperationPurgatory<Payload> purgatory = DelayedOperationPurgatory.<Payload>builder("reach")
            .timer(timer).reaperEnabled(false).build();

    @AfterEach
    void tearDown() {
        purgatory.engine().checkInvariants();
        purgatory.close();
        timer.close();
    }

    @Test
    void retainedSettledOperation_laterOperationsOfItsKeySettled_areAllCollected() {
        Payload retained = new Payload();
        purgatory.tryCompleteElseWatch(retained, List.of("k", "other"));
        List<WeakReference<Payload>> later = watchLater("k");
        assertThat(retained.forceComplete()).isTrue(); // settled first, while the later ones are linked after it

        for (WeakReference<Payload> ref : later) {
            ref.get().forceComplete();
        }

        assertCollected(later);
        assertThat(EngineInternals.holdsNoWatchLink(retained)).as("a settled operation links to nothing").isTrue();
    }

    @Test
    void retainedSettledOperationInTheMiddle_neighboursSettledByCheckExpiryAndCancel_areAllCollected() {
        List<WeakReference<Payload>> before = watchLater("k");
        Payload retained = new Payload();
        purgatory.tryCompleteElseWatch(retained, List.of("k"));
        List<WeakReference<Payload>> after = watchLater("k");
        retained.cancel();

        for (int i = 0; i < LATER; i += 2) {
            before.get(i).get().completable = true;
            after.get(i).get().completable = true;
        }
        assertThat(purgatory.checkAndComplete("k")).isEqualTo(LATER);
        purgatory.cancelForKey("k").clear(); // half of the rest, in this thread's copy of the list
        timer.advanceClock(60_000);

        assertCollected(before);
        assertCollected(after);
    }

    @Test
    void operationsCompletedByACheck_thisThreadsCopyOfTheList_holdsNoneOfThem() {
        List<WeakReference<Payload>> ops = watchLater("k");
        ops.forEach(ref -> ref.get().completable = true);

        assertThat(purgatory.checkAndComplete("k")).isEqualTo(LATER);

        assertCollected(ops);
    }

    @Test
    void close_fromACallbackThatMayNotWait_keepsNoOperationItSettledReachable() {
        List<WeakReference<Payload>> pending = watchLater("k");
        Payload closer = new Payload();
        closer.completeHook = purgatory::close; // code the library called: the close waits for nothing (Closing N4)
        purgatory.tryCompleteElseWatch(closer, List.of("closer"));

        assertThat(closer.forceComplete()).isTrue();

        assertThat(purgatory.isClosed()).isTrue();
        assertCollected(pending); // the closed purgatory, still referenced here, holds none of what it settled
    }

    private List<WeakReference<Payload>> watchLater(String key) {
        List<WeakReference<Payload>> refs = new ArrayList<>();
        for (int i = 0; i < LATER; i++) {
            Payload op = new Payload();
            purgatory.tryCompleteElseWatch(op, List.of(key));
            refs.add(new WeakReference<>(op));
        }
        return refs;
    }

    /** The timer drops its cancelled entries at its next turn; then no settled operation is reachable. */
    private void assertCollected(List<WeakReference<Payload>> refs) {
        timer.advanceClock(0);
        for (int i = 0; i < 10 && refs.stream().anyMatch(ref -> ref.get() != null); i++) {
            System.gc();
        }
        long alive = refs.stream().filter(ref -> ref.get() != null).count();
        assertThat(alive).as("settled operations still reachable").isZero();
    }

    /** An operation holding a payload, as a request context would. */
    static final class Payload extends HookOp {
        final byte[] payload = new byte[PAYLOAD_BYTES];

        Payload() {
            super(60_000);
        }
    }
}
