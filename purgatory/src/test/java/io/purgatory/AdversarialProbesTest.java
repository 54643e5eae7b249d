package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Attacks on the promises of docs/reliability.md ("Third round", issue 22) that the core withstood
 * when they were written, kept as regression tests: self-checks through two purgatories, keyed-wait
 * futures completed from outside in the ways the fault matrix does not try, exactly-once answers
 * and counters under races on real threads, submissions at every depth near the end of the stack,
 * a reentrant ManualTimer, a close from a tryComplete, and a runtime closed from an expiration.
 */
class AdversarialProbesTest {

    /** Tries beyond this stop the operations' own checks, so that a broken bound still returns. */
    private static final int CAP = 100_000;

    /** An operation that checks {@code key} of {@code purgatory} on every try and never completes. */
    private static DelayedOperation checking(DelayedOperationPurgatory<DelayedOperation> purgatory, String key,
                                             AtomicInteger tries, AtomicInteger total) {
        return new DelayedCondition(60_000, () -> {
            tries.incrementAndGet();
            if (total.incrementAndGet() < CAP) {
                purgatory.checkAndComplete(key);
            }
            return false;
        });
    }

    // ---- promise 4 ----

    @Test
    void checkAndComplete_operationsOfTwoPurgatoriesEachCheckingTheOthersKey_eachIsTriedAtMostThreeTimes() {
        try (DelayedOperationPurgatory<DelayedOperation> left = DelayedOperationPurgatory.builder("left")
                .timerEnabled(false).reaperEnabled(false).build();
             DelayedOperationPurgatory<DelayedOperation> right = DelayedOperationPurgatory.builder("right")
                .timerEnabled(false).reaperEnabled(false).build()) {
            AtomicInteger total = new AtomicInteger();
            AtomicInteger leftTries = new AtomicInteger();
            AtomicInteger rightTries = new AtomicInteger();
            // each checks the other purgatory's key, which checks back: a self-check through two purgatories
            left.tryCompleteElseWatch(checking(right, "r", leftTries, total), List.of("l"));
            right.tryCompleteElseWatch(checking(left, "l", rightTries, total), List.of("r"));
            leftTries.set(0);
            rightTries.set(0);

            left.checkAndComplete("l");

            assertThat(leftTries.get()).as("tries of the checked operation in one check").isLessThanOrEqualTo(3);
            assertThat(rightTries.get()).as("tries of the other, reached only through it").isLessThanOrEqualTo(3);
        }
    }

    // ---- promise 7 ----

    @Test
    void waitFuture_completedByCompleteOnTimeoutOrTimeoutADependentStageOrCompleteAsync_endsEachWait()
            throws Exception {
        ManualTimer timer = new ManualTimer();
        try (KeyedWaits<String, String> waits = KeyedWaits.builder("outside-ways").timer(timer).build()) {
            CompletableFuture<String> onTimeout = waits.await("a", Duration.ofSeconds(10));
            CompletableFuture<String> orTimeout = waits.await("b", Duration.ofSeconds(10));
            CompletableFuture<String> fromStage = waits.await("c", Duration.ofSeconds(10));
            CompletableFuture<String> async = waits.await("d", Duration.ofSeconds(10));
            CompletableFuture<String> copied = waits.await("e", Duration.ofSeconds(10));
            CompletableFuture<String> source = new CompletableFuture<>();

            onTimeout.completeOnTimeout("fallback", 1, TimeUnit.MILLISECONDS); // on the JDK's delayer thread
            orTimeout.orTimeout(1, TimeUnit.MILLISECONDS);
            CompletableFuture<Void> relay = source.thenAcceptAsync(fromStage::complete); // a dependent, elsewhere
            source.complete("relayed");
            async.completeAsync(() -> "supplied");
            copied.copy().complete("a copy is not the wait");
            relay.get(30, TimeUnit.SECONDS);
            for (CompletableFuture<String> f : List.of(onTimeout, orTimeout, async)) {
                f.handle((v, e) -> v).get(30, TimeUnit.SECONDS);
            }

            assertThat(onTimeout).isCompletedWithValue("fallback");
            assertThat(orTimeout).isCompletedExceptionally();
            assertThat(fromStage).isCompletedWithValue("relayed");
            assertThat(async).isCompletedWithValue("supplied");
            assertThat(copied).isNotDone();
            assertThat(waits.pending()).as("only the wait whose copy was completed is pending").isEqualTo(1);
            assertThat(waits.stats().cancelled()).as("the four ended from outside, counted cancelled").isEqualTo(4);
            assertThat(waits.complete("a", "late")).as("an event after the wait ended answers nothing").isZero();
            assertThatCode(() -> waits.engine().checkInvariants()).doesNotThrowAnyException();
        }
    }

    @Test
    void keyedWaits_eventsOutsideCompletionsCancelsErrorsAndExpiriesOnSeparateThreads_answerEachWaitOnceAndCountIt()
            throws Exception {
        for (int round = 0; round < 50; round++) {
            ManualTimer timer = new ManualTimer();
            KeyedWaits<String, String> waits = KeyedWaits.builder("keyed-race-" + round).timer(timer)
                    .retainEvents(Duration.ofMillis(5), 100).build();
            int n = 40;
            List<CompletableFuture<String>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                futures.add(waits.on("k" + (i % 4)).orElse("fallback").await(Duration.ofMillis(5 + i % 3)));
            }
            List<ReliabilitySupport.Work> work = List.of(
                    () -> {
                        for (int k = 0; k < 4; k++) {
                            waits.complete("k" + k, "event");
                        }
                    },
                    () -> {
                        for (int i = 0; i < n; i += 3) {
                            futures.get(i).complete("outside");
                        }
                    },
                    () -> {
                        for (int i = 1; i < n; i += 3) {
                            futures.get(i).cancel(true);
                        }
                    },
                    () -> timer.advanceClock(6),
                    () -> waits.completeExceptionally("k1", new IllegalStateException("failed")));

            ReliabilitySupport.runConcurrently("keyed-race", work);
            timer.advanceClock(100);

            int events = 0;
            int outside = 0;
            int cancelled = 0;
            int fallbacks = 0;
            int errors = 0;
            for (CompletableFuture<String> f : futures) {
                assertThat(f).isDone();
                try {
                    switch (f.join()) {
                        case "event" -> events++;
                        case "outside" -> outside++;
                        case "fallback" -> fallbacks++;
                        default -> throw new AssertionError(f);
                    }
                } catch (CancellationException c) {
                    cancelled++;
                } catch (CompletionException e) {
                    errors++;
                }
            }
            PurgatoryStats stats = waits.stats();
            assertThat(stats.completed() + stats.completedAtOnce()).as("completed: events and errors")
                    .isEqualTo(events + errors);
            assertThat(stats.cancelled()).as("cancelled: from outside").isEqualTo(outside + cancelled);
            assertThat(stats.expired()).as("expired: fallbacks").isEqualTo(fallbacks);
            assertThat(waits.pending()).isZero();
            waits.close();
        }
    }

    // ---- promises 1, 3 and 6 on real threads ----

    @Test
    void submissionsChecksAndCancelsRacingClose_everyAcceptedOperationIsAnsweredOnceAndTheCountersAddUp()
            throws Exception {
        for (int round = 0; round < 20; round++) {
            DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder(
                    "close-race-" + round).build();
            List<List<MockOperation>> accepted = new ArrayList<>();
            List<ReliabilitySupport.Work> work = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                List<MockOperation> mine = new ArrayList<>();
                accepted.add(mine);
                String own = "t" + t;
                work.add(() -> {
                    for (int i = 0; i < 300; i++) {
                        MockOperation op = new MockOperation(i % 5);
                        try {
                            p.tryCompleteElseWatch(op, List.of("k" + (i % 7), own));
                            mine.add(op);
                        } catch (IllegalStateException closed) {
                            assertThat(p.isClosed()).isTrue();
                        }
                        if (i % 3 == 0) {
                            p.checkAndComplete("k" + (i % 7));
                        }
                        if (i % 11 == 0) {
                            op.cancel();
                        }
                    }
                });
            }
            work.add(p::close);

            ReliabilitySupport.runConcurrently("close-race", work);

            int total = 0;
            for (List<MockOperation> mine : accepted) {
                for (MockOperation op : mine) {
                    total++;
                    assertThat(op.isCompleted()).isTrue();
                    assertThat(op.onCompleteCalls.get() + op.onCancelCalls.get()).as("answered once").isEqualTo(1);
                    assertThat(op.onExpirationCalls.get()).isEqualTo(op.outcome() == Outcome.EXPIRED ? 1 : 0);
                }
            }
            PurgatoryStats stats = p.stats();
            assertThat(stats.completed() + stats.completedAtOnce() + stats.expired() + stats.cancelled())
                    .as("settles counted").isEqualTo(total);
            assertThat(stats.pending()).isZero();
        }
    }

    // ---- promises 2 and 5 with the stack nearly exhausted ----

    @Test
    void tryCompleteElseWatch_atEveryDepthNearTheEndOfTheStack_anOverflowingSubmissionLeavesNothingBehind()
            throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(null, () -> {
            try {
                submitAtEveryDepth();
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "small-stack", 512 * 1024);
        t.start();
        t.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(t.isAlive()).isFalse();
        assertThat(failure.get()).isNull();
    }

    private static void submitAtEveryDepth() {
        int levels = 600;
        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("deep-submit")
                .timer(new ManualTimer()).maxPending(levels).build();
        for (int i = 0; i < 3; i++) { // every class loaded and linked at a comfortable depth
            MockOperation warm = new MockOperation(60_000);
            p.tryCompleteElseWatch(warm, List.of("warm", "shared"));
            p.checkAndComplete("warm");
            p.cancelForKey("shared");
        }
        List<MockOperation> ops = new ArrayList<>();
        List<MockOperation> refused = new ArrayList<>();
        NearlyExhaustedStackTest.AtEveryDepth.run(levels, i -> {
            MockOperation op = new MockOperation(60_000);
            try {
                p.tryCompleteElseWatch(op, List.of("k" + i, "shared"));
                ops.add(op);
            } catch (StackOverflowError overflow) {
                refused.add(op);
            }
        });

        assertThat(refused).as("submissions that overflowed: the probe reached the end of the stack").isNotEmpty();
        assertThat(p.numDelayed()).isEqualTo(ops.size());
        assertThatCode(() -> p.engine().checkInvariants()).doesNotThrowAnyException();
        for (MockOperation op : refused) {
            assertThat(op.state).as("an overflowing submission leaves its operation untouched").isZero();
        }
        assertThat(p.cancelForKey("shared")).hasSize(ops.size());
        for (int i = 0; i < levels; i++) { // every admission slot is free again
            p.tryCompleteElseWatch(new MockOperation(60_000), List.of("again-" + i));
        }
        for (int j = 0; j < refused.size(); j++) { // and each refused operation can be submitted again
            MockOperation op = refused.get(j);
            op.completable = true;
            assertThat(p.cancelForKey("again-" + j)).hasSize(1);
            assertThat(p.tryCompleteElseWatch(op, List.of("resubmitted"))).isTrue();
            assertThat(op.onCompleteCalls).hasValue(1);
        }
        p.close();
        assertThat(p.numDelayed()).isZero();
    }

    // ---- re-entry ----

    @Test
    void manualTimer_onExpirationAdvancesTheTimerAgain_everyOperationExpiresOnceAndOnTime() {
        ManualTimer timer = new ManualTimer();
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder(
                "reentrant-advance").timer(timer).build()) {
            List<MockOperation> ops = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                MockOperation op = new MockOperation(1 + 3L * i) {
                    @Override
                    public void onExpiration() {
                        super.onExpiration();
                        timer.advanceClock(3); // re-enters the advance that runs it
                    }
                };
                ops.add(op);
                p.tryCompleteElseWatch(op, List.of("k" + i));
            }

            timer.advanceClock(2);

            assertThat(ops).allSatisfy(op -> {
                assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
                assertThat(op.onExpirationCalls).hasValue(1);
            });
            assertThat(timer.size()).isZero();
        }
    }

    @Test
    void close_calledFromTheTryCompleteOfACheck_answersThatOperationOnceAndReturns() {
        DelayedOperationPurgatory<DelayedOperation> p = DelayedOperationPurgatory.builder("close-in-try")
                .timer(new ManualTimer()).build();
        AtomicInteger tries = new AtomicInteger();
        AtomicInteger answers = new AtomicInteger();
        AtomicReference<String> seenInTry = new AtomicReference<>();
        DelayedOperation op = new DelayedOperation(60_000) {
            @Override
            protected boolean tryComplete() {
                if (tries.incrementAndGet() == 3) { // the check's try: the submission made two
                    p.close(); // settles this operation, whose claim this thread holds
                    seenInTry.set("settled=" + isCompleted() + " forceComplete=" + forceComplete()
                            + " answers=" + answers.get());
                }
                return false;
            }

            @Override
            protected void onComplete() {
                answers.incrementAndGet();
            }

            @Override
            protected void onExpiration() {
                answers.incrementAndGet();
            }
        };
        p.tryCompleteElseWatch(op, List.of("k"));

        p.checkAndComplete("k");

        assertThat(seenInTry).as("inside the try, after close()")
                .hasValue("settled=true forceComplete=false answers=0");
        assertThat(p.isClosed()).isTrue();
        assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
        assertThat(answers).as("onComplete then onExpiration, once each").hasValue(2);
        assertThat(p.numDelayed()).isZero();
    }

    @Test
    void runtimeClose_fromAnOnExpirationOfOnePurgatory_closesEveryMemberWholeAndAnswersTheirWaits() {
        ManualTimer timer = new ManualTimer();
        PurgatoryRuntime runtime = PurgatoryRuntime.builder("closed-from-expiry").timer(timer).build();
        DelayedOperationPurgatory<DelayedOperation> p = DelayedOperationPurgatory.builder("member")
                .runtime(runtime).build();
        KeyedWaits<String, String> waits = KeyedWaits.builder("member-waits").runtime(runtime)
                .retainEvents(Duration.ofSeconds(10), 10).build();
        DelayedFuturePurgatory futures = new DelayedFuturePurgatory(DelayedOperationPurgatory.builder("member-futures")
                .runtime(runtime));
        CompletableFuture<String> pendingWait = waits.await("w", Duration.ofSeconds(60));
        waits.complete("retained", "event");
        AtomicInteger responses = new AtomicInteger();
        futures.tryCompleteElseWatch(60_000, List.of(new CompletableFuture<String>()), responses::incrementAndGet);
        MockOperation other = new MockOperation(60_000);
        p.tryCompleteElseWatch(other, List.of("other"));
        MockOperation closing = new MockOperation(5) {
            @Override
            public void onExpiration() {
                super.onExpiration();
                runtime.close();
            }
        };
        p.tryCompleteElseWatch(closing, List.of("closing"));

        timer.advanceClock(10);

        assertThat(runtime.isClosed()).isTrue();
        assertThat(List.<Purgatory>of(p, waits, futures)).allSatisfy(member -> assertThat(member.isClosed()).isTrue());
        assertThat(other.onExpirationCalls).hasValue(1);
        assertThat(pendingWait).isCompletedExceptionally();
        assertThat(waits.retainedEvents()).isZero();
        assertThat(responses).hasValue(1);
        assertThat(runtime.members()).isEmpty();
    }
}
