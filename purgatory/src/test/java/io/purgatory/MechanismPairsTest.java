package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Pairs of mechanisms that meet (each close against each thread the library calls code on, keys
 * that break the maps' contract against early and late events, nested checks against the stack),
 * held to docs/reliability.md's promises: the findings of the self-review by pairs (issue 30),
 * each failing before its fix; the open ones are disabled, saying why.
 */
class MechanismPairsTest {

    private static final long BOUND_SECONDS = 30; // a failure bound, not a measurement

    /*
     * Promise 7: "A close from a callback, a try or any code the library called waits for nothing
     * on other threads". The runtime's TaskErrorHandler is code the library calls (on the driver,
     * for an expiration the executor refused), but it is not counted as user code (UserCode U3),
     * so a runtime close from it waits for an expiry in flight on another thread: here that expiry
     * waits for the close to return, and the close waits out its 10 s bound.
     */
    @Test
    void runtimeClose_fromTheRuntimesTaskErrorHandlerOnTheDriver_waitsForNothingOnOtherThreads() throws Exception {
        CountDownLatch firstExpiring = new CountDownLatch(1);
        CountDownLatch closeReturned = new CountDownLatch(1);
        AtomicInteger executions = new AtomicInteger();
        Executor firstOnAThreadThenRefuse = task -> {
            if (executions.incrementAndGet() == 1) {
                new Thread(task, "expiry-thread").start();
            } else {
                throw new RejectedExecutionException("refused");
            }
        };
        PurgatoryRuntime[] runtime = new PurgatoryRuntime[1];
        runtime[0] = PurgatoryRuntime.builder("handler-closes").expirationExecutor(firstOnAThreadThenRefuse)
                .errorHandler((task, error) -> {
                    runtime[0].close(); // on the driver, inside the handler the timer called
                    closeReturned.countDown();
                }).build();
        DelayedOperationPurgatory<DelayedOperation> purgatory = DelayedOperationPurgatory.builder("on-it")
                .runtime(runtime[0]).build();
        try (LogCapture log = new LogCapture("io.purgatory")) {
            purgatory.tryCompleteElseWatch(new Callback(1, () -> {
                firstExpiring.countDown();
                try { // waits for the close made from the handler on the driver
                    closeReturned.await(BOUND_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }), List.of("a"));
            assertThat(firstExpiring.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
            purgatory.tryCompleteElseWatch(new Callback(1, () -> { }), List.of("b")); // refused, runs on the driver

            assertThat(closeReturned.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("the handler's close returned")
                    .isTrue();
            assertThat(purgatory.isClosed()).isTrue();
            assertThat(warnings(log)).as("the close from the handler waited out its bound for the other thread")
                    .isEmpty();
        } finally {
            runtime[0].close();
        }
    }

    /*
     * Promise 7 said both "a close from a callback waits for nothing on other threads" and "the
     * callbacks of what it settles run before it returns"; they cannot both hold for an operation
     * whose try holds the claim on another thread (the close's CAS wins, O2). The first stands:
     * that operation's callbacks run once, on the trying thread as its try ends (O5); the promise
     * now says so.
     */
    @Test
    void close_fromACallbackWhileAnotherThreadTriesAnOperationItSettles_itsCallbacksRunOnceAsThatTryEnds()
            throws Exception {
        ManualTimer timer = new ManualTimer();
        DelayedOperationPurgatory<DelayedOperation> purgatory = DelayedOperationPurgatory.builder("close-in-cb")
                .timer(timer).build();
        CountDownLatch inTry = new CountDownLatch(1);
        CountDownLatch releaseTry = new CountDownLatch(1);
        AtomicBoolean blockTries = new AtomicBoolean();
        AtomicInteger xCallbacks = new AtomicInteger();
        DelayedOperation x = new Blocking(blockTries, inTry, releaseTry, xCallbacks);
        purgatory.tryCompleteElseWatch(x, List.of("x"));
        blockTries.set(true);
        Thread checker = new Thread(() -> purgatory.checkAndComplete("x"), "checker");
        checker.start();
        assertThat(inTry.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
        AtomicInteger seenWhenCloseReturned = new AtomicInteger(-1);
        AtomicReference<Outcome> xOutcome = new AtomicReference<>();
        try {
            purgatory.tryCompleteElseWatch(new CompletesAtOnce(() -> {
                purgatory.close(); // from this operation's onComplete
                xOutcome.set(x.outcome());
                seenWhenCloseReturned.set(xCallbacks.get());
            }), List.of("y"));
        } finally {
            releaseTry.countDown();
            checker.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
        }

        assertThat(xOutcome.get()).as("the close settled x").isNotNull();
        assertThat(seenWhenCloseReturned).as("promise 7: a close from a callback waits for nothing on other"
                + " threads, so x's callbacks wait for the try that holds it (O5)").hasValue(0);
        assertThat(xCallbacks).as("x's callbacks ran once, on the trying thread as its try ended").hasValue(1);
    }

    /*
     * Keys (docs/reliability.md, "Keys"): "A key method that throws fails the call that used it,
     * with nothing half-done". With early events on, a key whose equals throws, hashed with a key
     * that has a retained event: await neither fails nor is refused; the key's failure is taken
     * for a failure of the wait's own tryComplete (promise 1: "Each failure of an operation's own
     * code is counted once and reaches the error handler once"), counted and handed to the error
     * handler, and the wait stays pending.
     */
    @Test
    void await_keyWhoseEqualsThrowsCollidingWithARetainedEvent_failsTheCallAndCountsNoCallbackError() {
        List<OperationErrorHandler.Callback> reported = Collections.synchronizedList(new ArrayList<>());
        KeyedWaits<CollidingKey, String> waits = KeyedWaits.builder("colliding").timer(new ManualTimer())
                .retainEvents(Duration.ofSeconds(10), 100)
                .errorHandler((name, op, callback, error) -> reported.add(callback)).build();
        try {
            waits.complete(new CollidingKey("good", false), "retained");

            Throwable thrown = catchThrowable(() -> waits.await(new CollidingKey("bad", true), Duration.ofSeconds(10)));

            assertThat(List.of(thrown != null, waits.pending(), waits.stats().callbackErrors(), reported))
                    .as("[await threw, pending, callbackErrors, reported to the handler]")
                    .isEqualTo(List.of(true, 0, 0L, List.of()));
        } finally {
            waits.close();
        }
    }

    /*
     * Promise 2: "A failed submission leaves nothing behind". The same key, now also colliding
     * with a key that has a pending wait: the submission fails (IllegalArgumentException from the
     * watch) and is undone, but its first try already counted the key's failure as a callback
     * error of the wait and handed it to the error handler as a tryComplete failure.
     */
    @Test
    void await_keyWhoseEqualsThrowsFailsTheSubmission_leavesNoCallbackErrorBehind() {
        List<OperationErrorHandler.Callback> reported = Collections.synchronizedList(new ArrayList<>());
        KeyedWaits<CollidingKey, String> waits = KeyedWaits.builder("colliding-undone").timer(new ManualTimer())
                .retainEvents(Duration.ofSeconds(10), 100)
                .errorHandler((name, op, callback, error) -> reported.add(callback)).build();
        try {
            CollidingKey good = new CollidingKey("good", false);
            CompletableFuture<String> pending = waits.await(good, Duration.ofSeconds(10));
            assertThat(pending).isNotDone();
            waits.complete(new CollidingKey("other", false), "retained"); // answers nothing, is retained

            assertThatThrownBy(() -> waits.await(new CollidingKey("bad", true), Duration.ofSeconds(10)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(waits.pending()).as("the failed submission was undone").isEqualTo(1);
            assertThat(List.of(waits.stats().callbackErrors(), reported))
                    .as("[callbackErrors, reported to the handler] after the undone submission")
                    .isEqualTo(List.of(0L, List.of()));
        } finally {
            waits.close();
        }
    }

    /** A key with a fixed hash whose equals throws if {@code throwing}. */
    private record CollidingKey(String name, boolean throwing) {
        @Override
        public int hashCode() {
            return 42;
        }

        @Override
        public boolean equals(Object o) {
            if (throwing) {
                throw new IllegalStateException("equals of " + name);
            }
            return o instanceof CollidingKey other && !other.throwing && other.name.equals(name);
        }
    }

    /** Its try blocks while {@code block} is set; counts its callbacks. */
    private static final class Blocking extends DelayedOperation {
        private final AtomicBoolean block;
        private final CountDownLatch inTry;
        private final CountDownLatch release;
        private final AtomicInteger callbacks;

        Blocking(AtomicBoolean block, CountDownLatch inTry, CountDownLatch release, AtomicInteger callbacks) {
            super(60_000);
            this.block = block;
            this.inTry = inTry;
            this.release = release;
            this.callbacks = callbacks;
        }

        @Override
        protected boolean tryComplete() {
            if (block.get()) {
                inTry.countDown();
                try {
                    release.await(BOUND_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return false;
        }

        @Override
        protected void onComplete() {
            callbacks.incrementAndGet();
        }

        @Override
        protected void onExpiration() {
        }

        @Override
        protected void onCancel() {
            callbacks.incrementAndGet();
        }
    }

    /** Completes at its first try and runs {@code onComplete}. */
    private static final class CompletesAtOnce extends DelayedOperation {
        private final Runnable onComplete;

        CompletesAtOnce(Runnable onComplete) {
            super(60_000);
            this.onComplete = onComplete;
        }

        @Override
        protected boolean tryComplete() {
            return forceComplete();
        }

        @Override
        protected void onComplete() {
            onComplete.run();
        }

        @Override
        protected void onExpiration() {
        }
    }

    /*
     * Promise 7: "A close from a user's thread returns once the callbacks of what it settled, and
     * of expiries in flight on other threads, have run (waiting at most 10 s)." When the first
     * close came from a callback (which waits for nothing, CloseOnce), a later close from a user's
     * thread waits only for that first close: it returns while an expiry of the purgatory is still
     * running its callback on another expiration thread.
     */
    @Test
    void close_fromAUsersThreadAfterAFirstCloseFromACallback_returnsOnlyOnceExpiriesInFlightHaveRun()
            throws Exception {
        Executor threadPerHandOff = task -> new Thread(task, "expiry").start();
        DelayedOperationPurgatory<DelayedOperation> purgatory = DelayedOperationPurgatory.builder("second-close")
                .expirationExecutor(threadPerHandOff).build();
        CountDownLatch bRunning = new CountDownLatch(1);
        CountDownLatch releaseB = new CountDownLatch(1);
        AtomicBoolean bFinished = new AtomicBoolean();
        CountDownLatch firstCloseReturned = new CountDownLatch(1);
        try {
            purgatory.tryCompleteElseWatch(new Callback(1, () -> {
                bRunning.countDown();
                try {
                    releaseB.await(BOUND_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                bFinished.set(true);
            }), List.of("b"));
            assertThat(bRunning.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue(); // B's expiry is in flight
            purgatory.tryCompleteElseWatch(new Callback(1, () -> {
                purgatory.close(); // the first close, from A's onExpiration on another thread
                firstCloseReturned.countDown();
            }), List.of("a"));
            assertThat(firstCloseReturned.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();

            Thread closer = new Thread(purgatory::close, "user-close");
            closer.start();
            boolean returnedWhileBRan = false;
            for (;;) { // release B once the user's close waits; note whether it returned before
                if (!closer.isAlive()) {
                    returnedWhileBRan = !bFinished.get();
                    break;
                }
                if (waitsInAClose(closer)) {
                    break;
                }
                Thread.onSpinWait();
            }
            releaseB.countDown();
            closer.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
            assertThat(returnedWhileBRan).as("the user's close returned while B's onExpiration still ran").isFalse();
        } finally {
            releaseB.countDown();
            purgatory.close();
        }
    }

    /*
     * Promise 7, the same cause as the TaskErrorHandler's: the expiration executor's execute is
     * also code the library calls (on the driver), and a runtime close from it waits 10 s for an
     * expiry in flight on the thread the executor started for an earlier hand-off.
     */
    @Test
    void runtimeClose_fromTheExpirationExecutorsExecuteOnTheDriver_waitsForNothingOnOtherThreads() throws Exception {
        CountDownLatch firstExpiring = new CountDownLatch(1);
        CountDownLatch closeReturned = new CountDownLatch(1);
        AtomicInteger executions = new AtomicInteger();
        PurgatoryRuntime[] runtime = new PurgatoryRuntime[1];
        Executor closingOnTheSecond = task -> {
            if (executions.incrementAndGet() == 1) {
                new Thread(task, "expiry-thread").start();
            } else {
                runtime[0].close(); // on the driver, inside the executor the timer called
                closeReturned.countDown();
                task.run();
            }
        };
        runtime[0] = PurgatoryRuntime.builder("executor-closes").expirationExecutor(closingOnTheSecond).build();
        DelayedOperationPurgatory<DelayedOperation> purgatory = DelayedOperationPurgatory.builder("on-it-too")
                .runtime(runtime[0]).build();
        try (LogCapture log = new LogCapture("io.purgatory")) {
            purgatory.tryCompleteElseWatch(new Callback(1, () -> {
                firstExpiring.countDown();
                try { // waits for the close made from the executor on the driver
                    closeReturned.await(BOUND_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }), List.of("a"));
            assertThat(firstExpiring.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
            purgatory.tryCompleteElseWatch(new Callback(1, () -> { }), List.of("b"));

            assertThat(closeReturned.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("the executor's close returned")
                    .isTrue();
            assertThat(purgatory.isClosed()).isTrue();
            assertThat(warnings(log)).as("the close from the executor waited out its bound for the other thread")
                    .isEmpty();
        } finally {
            runtime[0].close();
        }
    }

    /*
     * Keys: "a key that breaks the contract may get wrong answers but must not corrupt other
     * keys' state". A wait on a bad key and a good key, cancelled once the bad key's hashCode
     * stopped answering: the end is not remembered for the good key either (the loop over the
     * keys stops at the bad one), so an event on the good key right after is told unanswered
     * instead of late, and the bad key's failure is counted as a failure of the wait's onCancel.
     */
    @Test
    void cancel_waitOnABadAndAGoodKeyOnceTheBadKeyThrows_theGoodKeysEndIsStillRemembered() {
        List<UnansweredEventListener.Kind> told = Collections.synchronizedList(new ArrayList<>());
        KeyedWaits<Object, String> waits = KeyedWaits.builder("bad-and-good").timer(new ManualTimer())
                .lateEvents(Duration.ofSeconds(10), 100)
                .unansweredEvents((name, key, value, late) -> told.add(late))
                .errorHandler((name, op, callback, error) -> { }).build();
        try {
            BreakingKey bad = new BreakingKey();
            CompletableFuture<String> wait = waits.awaitAny(List.of(bad, "good"), Duration.ofSeconds(10), v -> true);
            bad.broken = true;
            assertThat(wait.cancel(true)).isTrue();

            assertThat(waits.complete("good", "just after the cancel")).isZero();
            assertThat(List.of(waits.events().late(), waits.events().unanswered(), told))
                    .as("[late, unanswered, told as] for the event on the good key")
                    .isEqualTo(List.of(1L, 0L, List.of(UnansweredEventListener.Kind.LATE)));
        } finally {
            waits.close();
        }
    }

    /** A key whose hashCode throws once it is broken (a key that breaks the maps' contract). */
    private static final class BreakingKey {
        volatile boolean broken;

        @Override
        public int hashCode() {
            if (broken) {
                throw new IllegalStateException("hashCode of a broken key");
            }
            return 7;
        }

        @Override
        public boolean equals(Object o) {
            return o == this;
        }
    }

    /** True iff {@code thread} is parked inside a close's wait (CloseOnce). */
    private static boolean waitsInAClose(Thread thread) {
        Thread.State state = thread.getState();
        if (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) {
            return false;
        }
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getClassName().endsWith(".CloseOnce")) {
                return true;
            }
        }
        return false;
    }

    /*
     * Promise 2: "When any call returns or throws ... the watch lists, gauges and timer agree";
     * promise 1 for a real StackOverflowError. A try may check keys (a chain: each operation's
     * try checks the next one's key, then completes itself). On a thread with the default stack,
     * from a shallow caller, a chain longer than the stack overflows inside the library's own
     * frames of the nested checks; run at each of a range of starting depths, some runs leave an
     * operation counted pending (numDelayed) or linked after every operation has settled once.
     * The caller did not enter with its stack nearly exhausted (the limit the docs state): the
     * depth comes from nesting the library allows. Which runs break depends on what the JIT has
     * compiled: not deterministic; it failed in 5 of the 7 runs made while writing it (1 to 12 runs
     * broken each time).
     */
    @Disabled("open (docs/reliability.md, the fifth review, 9): checks nested from tries deeper than the stack"
            + " end in a StackOverflowError in the library's frames; which depths break depends on the JIT, so"
            + " it is not a CI test")
    @Test
    void checkAndComplete_triesThatCheckTheNextKeyDeeperThanTheStack_leaveTheGaugesAndListsAgreeing()
            throws Exception {
        List<String> broken = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                for (int pad = 0; pad < 320; pad++) { // where the overflow lands moves with the depth
                    padThenChain(pad, pad, 4_000, broken);
                }
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "default-stack");
        t.start();
        t.join(TimeUnit.SECONDS.toMillis(120));
        assertThat(t.isAlive()).isFalse();
        assertThat(failure.get()).isNull();
        assertThat(broken).as("runs whose purgatory disagreed with its operations after they all settled once")
                .isEmpty();
    }

    private static void padThenChain(int framesLeft, int pad, int n, List<String> broken) {
        if (framesLeft > 0) {
            padThenChain(framesLeft - 1, pad, n, broken);
            return;
        }
        ManualTimer timer = new ManualTimer();
        DelayedOperationPurgatory<DelayedOperation> p = DelayedOperationPurgatory.builder("chain-" + pad)
                .timer(timer).errorHandler((name, op, cb, e) -> { }).build();
        AtomicBoolean armed = new AtomicBoolean();
        int[] callbacks = new int[n];
        for (int i = 0; i < n; i++) {
            p.tryCompleteElseWatch(new Chained(i, n, p, armed, callbacks), List.of("k" + i));
        }
        armed.set(true);
        try {
            p.checkAndComplete("k0");
        } catch (StackOverflowError overflow) {
            // contained or not, the state must agree below
        }
        armed.set(false);
        timer.advanceClock(60_000);
        List<String> wrongCallbacks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (callbacks[i] != 1) {
                wrongCallbacks.add("op " + i + " ran " + callbacks[i]);
            }
        }
        String invariants = "ok";
        try {
            p.engine().checkInvariants();
        } catch (RuntimeException | Error e) {
            invariants = e.toString();
        }
        if (!wrongCallbacks.isEmpty() || p.numDelayed() != 0 || !"ok".equals(invariants)) {
            broken.add("pad " + pad + ": numDelayed " + p.numDelayed() + ", callbacks not run exactly once: "
                    + wrongCallbacks + ", invariants " + invariants);
        }
        p.close();
    }

    /** Its try checks the next operation's key, then completes itself; counts its callbacks. */
    private static final class Chained extends DelayedOperation {
        private final int index;
        private final int n;
        private final DelayedOperationPurgatory<DelayedOperation> purgatory;
        private final AtomicBoolean armed;
        private final int[] callbacks;

        Chained(int index, int n, DelayedOperationPurgatory<DelayedOperation> purgatory, AtomicBoolean armed,
                int[] callbacks) {
            super(60_000);
            this.index = index;
            this.n = n;
            this.purgatory = purgatory;
            this.armed = armed;
            this.callbacks = callbacks;
        }

        @Override
        protected boolean tryComplete() {
            if (!armed.get()) {
                return false;
            }
            if (index + 1 < n) {
                purgatory.checkAndComplete("k" + (index + 1));
            }
            return forceComplete();
        }

        @Override
        protected void onComplete() {
            callbacks[index]++;
        }

        @Override
        protected void onExpiration() {
        }

        @Override
        protected void onCancel() {
            callbacks[index]++;
        }
    }

    /*
     * Promise 7: "A close from a user's thread returns once the callbacks ... of expiries in flight
     * on other threads, have run (waiting at most 10 s) ... The same rule for a runtime's close
     * and each purgatory's". A runtime's close gives each member's close its own 10 s bound: with
     * an expiry in flight in each of two members, it waits 10 s twice (two warnings, 20 s).
     */
    @Test
    void runtimeClose_twoMembersEachWithAnExpiryInFlight_waitsAtMostOneBoundInAll() throws Exception {
        Executor threadPerHandOff = task -> new Thread(task, "expiry").start();
        PurgatoryRuntime runtime = PurgatoryRuntime.builder("two-bounds").expirationExecutor(threadPerHandOff)
                .build();
        CountDownLatch closeReturned = new CountDownLatch(1);
        CountDownLatch inFlight = new CountDownLatch(2);
        Runnable blockUntilTheCloseReturns = () -> {
            inFlight.countDown();
            try {
                closeReturned.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        try (LogCapture log = new LogCapture("io.purgatory")) {
            for (String name : List.of("member-1", "member-2")) {
                DelayedOperationPurgatory<DelayedOperation> member = DelayedOperationPurgatory.builder(name)
                        .runtime(runtime).build();
                long before = inFlight.getCount();
                member.tryCompleteElseWatch(new Callback(1, blockUntilTheCloseReturns), List.of("k"));
                // each expiry in a hand-off of its own (one hand-off runs its batch on one thread)
                for (int i = 0; i < BOUND_SECONDS * 1000 && inFlight.getCount() == before; i++) {
                    Thread.sleep(1);
                }
            }
            assertThat(inFlight.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("both expiries in flight").isTrue();

            runtime.close();
            closeReturned.countDown();

            assertThat(warnings(log)).as("the runtime's close waited its 10 s bound at most once")
                    .filteredOn(w -> w.contains("waited")).hasSizeLessThan(2);
        } finally {
            closeReturned.countDown();
            runtime.close();
        }
    }

    private static List<String> warnings(LogCapture log) {
        return log.events().stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .map(ILoggingEvent::getFormattedMessage).toList();
    }

    /** An operation that never completes by itself and runs {@code onExpiration} at its expiry. */
    private static final class Callback extends DelayedOperation {
        private final Runnable onExpiration;

        Callback(long delayMs, Runnable onExpiration) {
            super(delayMs);
            this.onExpiration = onExpiration;
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
            onExpiration.run();
        }
    }
}
