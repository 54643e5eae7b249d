package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.internal.DueVisitor;
import io.purgatory.timer.internal.EntryAccess;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * DriverState.visitByDue where a bucket of the finest wheel and one of a coarser wheel share an
 * expiration: the finest one's deadlines start a tick earlier, so it must be shown first (the
 * queue's DUE_ORDER), or a visitor that stops at the coarser one's bound would miss them. The
 * coarser bucket's bound is taken as the finest one's rule (expiration - finest tick + 1), lower
 * than the "its expiration" DriverState documents: safe, it reads a bucket more.
 */
class VisitByDueTiesTest {

    @Test
    void visitByDue_finestAndCoarserBucketsDueAtOnce_showsTheFinestsEarlierDeadlinesBeforeAStop() {
        ManualTimer timer = new ManualTimer(new ManualClock(), 3, 8, (task, error) -> { });
        CountingTask finest = new CountingTask(22); // finest: vid ceil(22 / 3) = 8, due at 24, deadlines from 22
        CountingTask coarser = new CountingTask(30); // coarser (tick 12): vid 2, due at 24, deadlines from 24
        timer.add(finest);
        timer.add(coarser);
        timer.advanceClock(0); // off the inbox, into their buckets
        List<Long> bounds = new ArrayList<>();
        List<Long> shown = new ArrayList<>();
        assertThat(EntryAccess.get().visitByDue(timer, new DueVisitor() {
            @Override
            public boolean wants(long fromMs) {
                bounds.add(fromMs);
                return fromMs < 24; // a list full up to a worst kept due at 24
            }

            @Override
            public void visit(TimerEntry entry, long deadlineMs) {
                shown.add(deadlineMs);
            }
        }, Long.MAX_VALUE)).isTrue();
        // the finest bucket first (its bound 22); the coarser one's bound is the same finest-tick rule,
        // expiration - 3 + 1, below its own deadlines (from 24): a looser bound, so it is read too
        assertThat(bounds).containsExactly(22L, 22L);
        assertThat(shown).containsExactly(22L, 30L);
        timer.close();
    }
}
