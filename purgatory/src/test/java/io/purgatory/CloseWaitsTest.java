package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * What close() waits for before it returns (Closing N4, promise 6 of docs/reliability.md): the
 * callbacks of every operation it settled, also when called from a callback, a dependent stage of
 * a wait's future or a tryComplete (Callbacks Q3), and of every expiry already running on another
 * thread, one that a try's thread finishes included, but never its own; a second close, on the
 * reaper thread the first one joins, returns within its bound (N5); a runtime's close closes what
 * was built on it whole, also from an expiration (PurgatoryRuntime P1).
 */
class CloseWaitsTest {

    /** An operation whose onExpiration blocks until released, noting whether it finished. */
    static final class SlowExpiry extends DelayedOperation {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicBoolean finished = new AtomicBoolean();

        SlowExpiry(long delayMs) {
            super(delayMs);
        }

        @Override
        protected boolean tryComplete() {
            return false;
        }

        @Override
        protected void onComplete() {
        }

        @Override
        protected void onExpiration() {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            finished.set(true);
        }
    }

    @Test
    void close_anExpiryRunningOnAnExpirationThread_returnsOnlyOnceItsCallbacksHaveRun() throws Exception {
        DelayedOperationPurgatory<SlowExpiry> p = DelayedOperationPurgatory.<SlowExpiry>builder("waits-for-expiry")
                .build();
        SlowExpiry op = new SlowExpiry(1);
        p.tryCompleteElseWatch(op, List.of("k"));
        assertThat(op.started.await(30, TimeUnit.SECONDS)).as("the expiry began").isTrue();
        AtomicBoolean callbacksDoneWhenCloseReturned = new AtomicBoolean();
        AtomicBoolean closeReturned = new AtomicBoolean();
        Thread closer = new Thread(() -> {
            p.close();
            callbacksDoneWhenCloseReturned.set(op.finished.get());
            closeReturned.set(true);
        }, "closer");
        closer.start();

        ReliabilitySupport.awaitCondition("close() returned, or waits for the expiry",
                () -> closeReturned.get() || isCloseOnce(LockSupport.getBlocker(closer)));
        op.release.countDown();
        closer.join(30_000);

        assertThat(closeReturned).isTrue();
        assertThat(callbacksDoneWhenCloseReturned).as("close() returned after onExpiration finished").isTrue();
    }

    @Test
    void close_calledFromAnExpirationCallback_doesNotWaitForItself() throws Exception {
        CountDownLatch closed = new CountDownLatch(1);
        AtomicReference<DelayedOperationPurgatory<DelayedOperation>> holder = new AtomicReference<>();
        DelayedOperationPurgatory<DelayedOperation> p = DelayedOperationPurgatory.builder("closes-itself").build();
        holder.set(p);
        p.tryCompleteElseWatch(new DelayedOperation(1) {
            @Override
            protected boolean tryComplete() {
                return false;
            }

            @Override
            protected void onComplete() {
            }

            @Override
            protected void onExpiration() {
                holder.get().close();
                closed.countDown();
            }
        }, List.of("k"));

        assertThat(closed.await(5, TimeUnit.SECONDS)).as("close() from the callback returned at once").isTrue();
        assertThat(p.isClosed()).isTrue();
    }

    @Test
    void runtimeClose_keyedWaitsAndAFuturePurgatoryOnIt_areClosedWhole() throws Exception {
        PurgatoryRuntime runtime = PurgatoryRuntime.builder("whole").build();
        KeyedWaits<String, String> waits = KeyedWaits.builder("whole-waits").runtime(runtime)
                .retainEvents(Duration.ofMinutes(1), 10).build();
        DelayedFuturePurgatory futures =
                new DelayedFuturePurgatory(DelayedOperationPurgatory.builder("whole-futures").runtime(runtime));
        waits.complete("k", "retained");
        CompletableFuture<String> wait = waits.await("other", Duration.ofMinutes(1));
        CompletableFuture<Integer> done = new CompletableFuture<>();
        CountDownLatch completedOnItsThread = new CountDownLatch(1);
        futures.tryCompleteElseWatch(60_000, List.of(done), completedOnItsThread::countDown);
        done.complete(1); // its completion runs on the purgatory's thread, which stays
        assertThat(completedOnItsThread.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Integer> pending = new CompletableFuture<>();
        futures.tryCompleteElseWatch(60_000, List.of(pending), () -> { });
        assertThat(waits.retainedEvents()).isEqualTo(1);
        assertThat(ReliabilitySupport.findThread("DelayedExecutor-whole-futures")).isNotNull();

        runtime.close();

        assertThat(wait).isCompletedExceptionally();
        assertThat(waits.retainedEvents()).as("the retained events dropped with the waits").isZero();
        assertThat(pending).as("answered by the close policy").isCompletedExceptionally();
        ReliabilitySupport.awaitCondition("the future purgatory's thread stopped",
                () -> ReliabilitySupport.findThread("DelayedExecutor-whole-futures") == null);
    }

    @Test
    void close_fromOnCompleteOfAnotherOperation_returnsOnceTheCallbacksOfWhatItSettledHaveRun() {
        ManualTimer timer = new ManualTimer();
        DelayedOperationPurgatory<DelayedOperation> p = DelayedOperationPurgatory.builder("close-in-callback")
                .timer(timer).build();
        MockOperation other = new MockOperation(60_000);
        p.tryCompleteElseWatch(other, List.of("other"));
        AtomicInteger otherExpirationsWhenCloseReturned = new AtomicInteger(-1);
        DelayedOperation closing = closingOperation(p, other, otherExpirationsWhenCloseReturned);
        p.tryCompleteElseWatch(closing, List.of("closing"));

        closing.forceComplete(); // its onComplete closes the purgatory, which expires `other`

        assertThat(other.onExpirationCalls).as("close() answered it, eventually").hasValue(1);
        assertThat(otherExpirationsWhenCloseReturned).as("onExpiration of `other` had run when close() returned")
                .hasValue(1);
    }

    @Test
    void keyedWaitsClose_fromADependentStageOfAnotherWait_returnsWithTheFuturesItAnsweredDone() {
        ManualTimer timer = new ManualTimer();
        KeyedWaits<String, String> waits = KeyedWaits.builder("close-in-stage").timer(timer).build();
        CompletableFuture<String> first = waits.await("a", Duration.ofSeconds(10));
        CompletableFuture<String> second = waits.await("b", Duration.ofSeconds(10));
        AtomicBoolean secondDoneWhenCloseReturned = new AtomicBoolean();
        AtomicBoolean closeReturned = new AtomicBoolean();
        CompletableFuture<Void> stage = first.thenRun(() -> { // runs inside first's onComplete
            waits.close();
            closeReturned.set(true);
            secondDoneWhenCloseReturned.set(second.isDone()); // a join() here would block for ever
        });

        waits.complete("a", "paid");

        assertThat(stage).isDone();
        assertThat(closeReturned).isTrue();
        assertThat(second).isDone(); // once the callback returned, the queued ones ran
        assertThat(secondDoneWhenCloseReturned).as("the future close() answered was done when it returned")
                .isTrue();
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
    void close_anExpiryThatLandedDuringATryIsFinishingOnTheTrysThread_returnsOnlyOnceItsCallbacksHaveRun()
            throws Exception {
        ManualTimer timer = new ManualTimer();
        DelayedOperationPurgatory<DelayedOperation> p = DelayedOperationPurgatory.builder("expiry-in-try")
                .timer(timer).build();
        CountDownLatch inTry = new CountDownLatch(1);
        CountDownLatch releaseTry = new CountDownLatch(1);
        CountDownLatch inOnComplete = new CountDownLatch(1);
        CountDownLatch releaseOnComplete = new CountDownLatch(1);
        AtomicBoolean armed = new AtomicBoolean();
        AtomicBoolean expirationRan = new AtomicBoolean();
        DelayedOperation op = new DelayedOperation(10) {
            @Override
            protected boolean tryComplete() {
                if (armed.compareAndSet(true, false)) {
                    inTry.countDown();
                    TestThreads.awaitInCallback(releaseTry);
                }
                return false;
            }

            @Override
            protected void onComplete() {
                inOnComplete.countDown();
                TestThreads.awaitInCallback(releaseOnComplete);
            }

            @Override
            protected void onExpiration() {
                expirationRan.set(true);
            }
        };
        p.tryCompleteElseWatch(op, List.of("k"));
        armed.set(true);
        Thread checker = new Thread(() -> p.checkAndComplete("k"), "checker");
        checker.setDaemon(true);
        checker.start();
        TestThreads.await(inTry, "the checker's try began");
        timer.advanceClock(20); // the expiry, on this thread: it settles the operation, whose claim the checker holds
        assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
        releaseTry.countDown(); // the checker finishes the expiry: off its lists, then onComplete, onExpiration
        TestThreads.await(inOnComplete, "onComplete of the expiry began on the checker");

        AtomicBoolean expirationRanWhenCloseReturned = new AtomicBoolean();
        Thread closer = new Thread(() -> {
            p.close();
            expirationRanWhenCloseReturned.set(expirationRan.get());
        }, "closer");
        closer.setDaemon(true);
        closer.start();
        ReliabilitySupport.awaitCondition("close() returned, or waits", () -> !closer.isAlive()
                || closer.getState() == Thread.State.WAITING || closer.getState() == Thread.State.TIMED_WAITING);
        releaseOnComplete.countDown();
        closer.join(TimeUnit.SECONDS.toMillis(30));
        checker.join(TimeUnit.SECONDS.toMillis(30));

        assertThat(closer.isAlive()).isFalse();
        assertThat(expirationRan).isTrue();
        assertThat(expirationRanWhenCloseReturned).as("onExpiration had run when close() returned").isTrue();
    }

    @Test
    void close_whileAnOnExpirationOnTheReaperThreadAlsoClosesThePurgatory_returnsWithinItsBound() throws Exception {
        DelayedOperationPurgatory<DelayedOperation> p = DelayedOperationPurgatory.builder("close-joins-reaper")
                .expirationExecutor(Runnable::run).build();
        CountDownLatch inExpiry = new CountDownLatch(1);
        Thread submitter = Thread.currentThread();
        DelayedOperation op = new DelayedOperation(50) {
            @Override
            protected boolean tryComplete() {
                return false;
            }

            @Override
            protected void onComplete() {
            }

            @Override
            protected void onExpiration() { // on the reaper thread
                inExpiry.countDown();
                // an expiry that lands while the submission still holds the claim is finished by the
                // submitting thread (O5): the closer is not started yet, so it must not wait for it
                while (Thread.currentThread() != submitter && !p.isClosed()) { // until the closer has begun
                    Thread.onSpinWait();
                }
                p.close(); // a second close, from a callback: returns at once, waiting for nothing (CloseOnce)
            }
        };
        p.tryCompleteElseWatch(op, List.of("k"));
        TestThreads.await(inExpiry, "the expiry began on the reaper");

        Thread closer = new Thread(p::close, "closer");
        closer.setDaemon(true); // if it deadlocks, it must not keep the test JVM alive
        closer.start();
        closer.join(TimeUnit.SECONDS.toMillis(30)); // a failure bound: close() promises at most 10 s

        if (closer.isAlive()) {
            fail("close() did not return within 30 s\n" + TestThreads.threadDump());
        }
        assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
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
        assertThat(runtime.core().members()).isEmpty();
    }

    /** True iff {@code blocker} is what a close parks on while it waits (CloseOnce, package-private). */
    private static boolean isCloseOnce(Object blocker) {
        return blocker != null && blocker.getClass().getName().equals("io.purgatory.internal.CloseOnce");
    }

    /** An operation whose onComplete closes {@code p} and notes how often {@code other} had expired then. */
    private static DelayedOperation closingOperation(DelayedOperationPurgatory<DelayedOperation> p,
                                                     MockOperation other, AtomicInteger expirationsSeen) {
        return new DelayedOperation(60_000) {
            @Override
            protected boolean tryComplete() {
                return false;
            }

            @Override
            protected void onComplete() {
                p.close();
                expirationsSeen.set(other.onExpirationCalls.get());
            }

            @Override
            protected void onExpiration() {
            }
        };
    }
}
