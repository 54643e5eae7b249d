package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The striped inbox: one stripe per thread, LIFO chains taken whole, a batch signal per stripe (I2). */
class InboxTest {

    @Test
    void push_fromOneThread_allLandOnOneStripeNewestFirst() {
        Inbox inbox = new Inbox(4);
        List<TimerEntry> tasks = tasks(3);
        tasks.forEach(t -> inbox.push(t, true));

        int nonEmpty = 0;
        for (int s = 0; s < inbox.stripes(); s++) {
            TimerEntry head = inbox.take(s);
            if (head != null) {
                nonEmpty++;
                assertThat(chain(head)).containsExactly(tasks.get(2), tasks.get(1), tasks.get(0));
            }
        }
        assertThat(nonEmpty).isEqualTo(1);
        assertThat(inbox.isEmpty()).isTrue();
    }

    @Test
    void push_fromTwoThreads_landsOnTwoStripes() throws Exception {
        Inbox inbox = new Inbox(16);
        CountDownLatch done = new CountDownLatch(2);
        Set<Thread> pushers = ConcurrentHashMap.newKeySet();
        for (int t = 0; t < 2; t++) {
            new Thread(() -> {
                pushers.add(Thread.currentThread());
                tasks(5).forEach(task -> inbox.push(task, true));
                done.countDown();
            }).start();
        }
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();

        List<Integer> sizes = new ArrayList<>();
        for (int s = 0; s < inbox.stripes(); s++) {
            TimerEntry head = inbox.peek(s);
            if (head != null) {
                sizes.add(chain(head).size());
            }
        }
        assertThat(pushers).hasSize(2);
        assertThat(sizes).as("threads get stripes in order, so two threads never share one").containsExactly(5, 5);
    }

    @Test
    void push_deadTasks_reportABatchEveryDeadBatchPushesOfAStripe() {
        Inbox inbox = new Inbox(2);
        int reported = 0;
        for (int i = 1; i <= 3 * Inbox.DEAD_BATCH; i++) {
            if (inbox.push(new NoopTask(), false)) {
                reported++;
                assertThat(i % Inbox.DEAD_BATCH).as("push %d", i).isZero();
            }
        }
        assertThat(reported).isEqualTo(3);
    }

    @Test
    void push_freshTasks_weighOneFreshPerDeadthAndMixWithDeadOnes() {
        Inbox inbox = new Inbox(2);
        int fresh = Inbox.DEAD_BATCH * Inbox.FRESH_PER_DEAD;
        for (int i = 1; i < fresh; i++) {
            assertThat(inbox.push(new NoopTask(), true)).as("fresh push %d", i).isFalse();
        }
        assertThat(inbox.push(new NoopTask(), true)).as("fresh push %d", fresh).isTrue();

        int half = fresh / 2;
        for (int i = 1; i <= half; i++) {
            assertThat(inbox.push(new NoopTask(), true)).isFalse();
        }
        int dead = 0;
        boolean reported = false;
        while (!reported) {
            dead++;
            reported = inbox.push(new NoopTask(), false);
        }
        assertThat(dead).as("half a batch of fresh tasks, then half a batch of dead ones")
                .isEqualTo(Inbox.DEAD_BATCH / 2);
    }

    @Test
    void take_emptyStripe_returnsNullAndPeekLeavesTasksInPlace() throws Exception {
        Inbox inbox = new Inbox(2);
        assertThat(inbox.take(0)).isNull();
        assertThat(inbox.isEmpty()).isTrue();
        TimerTask task = new NoopTask();
        CompletableFuture.runAsync(() -> inbox.push(task, true)).get(10, TimeUnit.SECONDS);

        assertThat(inbox.isEmpty()).isFalse();
        int stripe = inbox.peek(0) != null ? 0 : 1;
        assertThat(inbox.peek(stripe)).isSameAs(task);
        assertThat(inbox.peek(stripe)).as("peek does not take").isSameAs(task);
        assertThat(inbox.take(stripe)).isSameAs(task);
        assertThat(inbox.isEmpty()).isTrue();
    }

    private static List<TimerEntry> tasks(int n) {
        List<TimerEntry> tasks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            tasks.add(new NoopTask());
        }
        return tasks;
    }

    private static List<TimerEntry> chain(TimerEntry head) {
        List<TimerEntry> tasks = new ArrayList<>();
        for (TimerEntry t = head; t != null; t = t.inboxNext) {
            tasks.add(t);
        }
        return tasks;
    }

    private static final class NoopTask extends TimerTask {
        NoopTask() {
            super(1);
        }

        @Override
        public void run() {
        }
    }
}
