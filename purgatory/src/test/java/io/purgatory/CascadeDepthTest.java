package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Issue 17, defect 2: completion cascades of any depth run in bounded stack, on a thread with the
 * default stack size, with every callback run exactly once and nothing left linked or held.
 * Before the fix, a chain recursed once per link and overflowed near 900 links, leaving
 * operations settled with no callback, gauges off for good and, at times, a shard lock held.
 */
class CascadeDepthTest {

    private static final Duration HANG_GUARD = Duration.ofMinutes(2);

    @Test
    void chainOfCompletions_100000Long_everyCallbackOnceOnADefaultStack() throws Exception {
        int n = 100_000;
        DelayedOperationPurgatory<Link> p = DelayedOperationPurgatory.<Link>builder("chain")
                .timerEnabled(false).reaperEnabled(false).build();
        Link[] links = new Link[n];
        for (int i = 0; i < n; i++) {
            links[i] = new Link(p, links, i, i + 1 < n ? i + 1 : -1);
            p.tryCompleteElseWatch(links[i], List.of(i));
        }
        links[0].ready = true;

        int[] firstCount = {-1};
        runOnDefaultStack(() -> firstCount[0] = p.checkAndComplete(0));

        assertThat(firstCount[0]).isEqualTo(1);
        for (Link link : links) {
            assertThat(link.onComplete).as("link %d", link.index).hasValue(1);
        }
        assertThat(Link.maxDepth.get()).as("callbacks ran one after another, not nested").isEqualTo(1);
        assertThat(p.numDelayed()).isZero();
        assertThat(p.watched()).isZero();
        assertThat(p.watchedKeys()).isZero();
        assertThat(p.stats().completed()).isEqualTo(n);
        assertThat(p.stats().callbackErrors()).isZero();
        p.engine().checkInvariants();
        assertTimeoutPreemptively(HANG_GUARD, p::close, "no shard lock is left held");
    }

    @Test
    void semaphoreLikeKey_20000Waiters_eachReleaseChecksTheKeyAgain_everyCallbackOnceOnADefaultStack()
            throws Exception {
        int n = 20_000;
        DelayedOperationPurgatory<Waiter> p = DelayedOperationPurgatory.<Waiter>builder("semaphore")
                .timerEnabled(false).reaperEnabled(false).build();
        AtomicInteger permits = new AtomicInteger();
        Waiter[] waiters = new Waiter[n];
        for (int i = 0; i < n; i++) {
            waiters[i] = new Waiter(p, permits);
            p.tryCompleteElseWatch(waiters[i], List.of("lock"));
        }
        permits.set(1);

        int[] firstCount = {-1};
        runOnDefaultStack(() -> firstCount[0] = p.checkAndComplete("lock"));

        assertThat(firstCount[0]).isEqualTo(1);
        for (Waiter w : waiters) {
            assertThat(w.onComplete).hasValue(1);
        }
        assertThat(permits).as("every permit given back").hasValue(1);
        assertThat(p.numDelayed()).isZero();
        assertThat(p.watched()).isZero();
        assertThat(p.stats().completed()).isEqualTo(n);
        p.engine().checkInvariants();
        assertTimeoutPreemptively(HANG_GUARD, p::close);
    }

    /** Runs {@code work} on a new thread with the JVM's default stack size; rethrows what it threw. */
    private static void runOnDefaultStack(Runnable work) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                work.run();
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "default-stack");
        thread.start();
        assertTimeoutPreemptively(HANG_GUARD, () -> thread.join());
        if (failure.get() != null) {
            throw new AssertionError("the cascade threw", failure.get());
        }
    }

    /** Link i of a chain: completes when marked ready; its onComplete readies link i+1 and checks its key. */
    static final class Link extends DelayedOperation {
        static final AtomicInteger depth = new AtomicInteger();
        static final AtomicInteger maxDepth = new AtomicInteger();
        final DelayedOperationPurgatory<Link> purgatory;
        final Link[] chain;
        final int index;
        final int next;
        final AtomicInteger onComplete = new AtomicInteger();
        volatile boolean ready;

        Link(DelayedOperationPurgatory<Link> purgatory, Link[] chain, int index, int next) {
            super(60_000);
            this.purgatory = purgatory;
            this.chain = chain;
            this.index = index;
            this.next = next;
        }

        @Override
        protected boolean tryComplete() {
            return ready && forceComplete();
        }

        @Override
        protected void onComplete() {
            int d = depth.incrementAndGet();
            maxDepth.accumulateAndGet(d, Math::max);
            try {
                onComplete.incrementAndGet();
                if (next >= 0) {
                    chain[next].ready = true;
                    purgatory.checkAndComplete(next);
                }
            } finally {
                depth.decrementAndGet();
            }
        }

        @Override
        protected void onExpiration() {
        }
    }

    /** Waits for a permit on one key; its onComplete gives the permit back and checks the key again. */
    static final class Waiter extends DelayedOperation {
        final DelayedOperationPurgatory<Waiter> purgatory;
        final AtomicInteger permits;
        final AtomicInteger onComplete = new AtomicInteger();

        Waiter(DelayedOperationPurgatory<Waiter> purgatory, AtomicInteger permits) {
            super(60_000);
            this.purgatory = purgatory;
            this.permits = permits;
        }

        @Override
        protected boolean tryComplete() {
            int left = permits.get();
            return left > 0 && permits.compareAndSet(left, left - 1) && forceComplete();
        }

        @Override
        protected void onComplete() {
            onComplete.incrementAndGet();
            permits.incrementAndGet();
            purgatory.checkAndComplete("lock");
        }

        @Override
        protected void onExpiration() {
        }
    }
}
