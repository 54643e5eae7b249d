package io.purgatory.internal;

import io.purgatory.internal.Operation.Watching;
import io.purgatory.internal.Watchers.PositionNode;
import io.purgatory.internal.Watchers.WatchNode;
import io.purgatory.timer.TimerEntry;
import io.purgatory.timer.internal.DueVisitor;
import io.purgatory.timer.internal.EntryAccess;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The pending operations of an engine, oldest (or soonest due) first, at most {@code limit} of
 * them: for an operator's list. Reads one watcher list at a time under its lock, held while it
 * walks that list's keys, and calls no user code. Allocates at most {@code limit} candidates,
 * reused as better ones replace them, and what it returns.
 */
public final class PendingList {

    /*
     * Implementation notes.
     *
     * A max-heap keeps the best `limit` candidates seen, by watch time (oldest first) or by due
     * time (watch time + delay). A watcher list's keys are walked in the order they became
     * non-empty, each with a lower bound of its operations' watch times (Watchers K8): once that
     * bound (plus the engine's least delay, for due order) is no better than the worst kept,
     * no later key of the list can add a candidate. Within a key, operations watching it alone are
     * in watch order, so the walk of that list stops the same way: at the first operation not kept
     * (oldest first), or whose watch time plus the least delay is not (soonest due first). An operation
     * on several keys is taken from the first node of its chain only, so it is counted once.
     */

    private static final Comparator<Candidate> ORDER = Comparator.comparingLong(c -> c.sortKey);
    /** How long a list waits for a busy timer driver to read its buckets, before it walks every list instead. */
    private static final long ASK_TIMER_NANOS = 100_000_000;

    private final int limit;
    private final boolean byDue;
    private final long minDelayNanos;
    private final long nowNanos;
    /** The best candidates seen, the worst first. */
    private final PriorityQueue<Candidate> kept = new PriorityQueue<>(ORDER.reversed());

    private PendingList(int limit, boolean byDue, long minDelayNanos, long nowNanos) {
        this.limit = limit;
        this.byDue = byDue;
        this.minDelayNanos = minDelayNanos;
        this.nowNanos = nowNanos;
    }

    /** An operation kept, watching at {@code place}, ranked by {@code sortKey}; reused once dropped (at most limit). */
    private static final class Candidate {
        Operation op;
        Watching place;
        long sortKey;
        long watchedNanos;
    }

    /**
     * One pending operation as read: its keys, the position it waits for (or null), how long ago
     * it was watched, and whether a check tried it.
     */
    public record Pending(Operation op, List<Object> keys, Long position, long ageNanos, boolean tried) {
    }

    /**
     * The {@code limit} oldest (or soonest due, if {@code byDue}) pending operations of
     * {@code engine}, in that order.
     *
     * @throws IllegalStateException if the engine's clock threw: the ages cannot be read
     */
    public static List<Pending> of(Engine engine, int limit, boolean byDue) {
        long now = engine.nowNanos();
        if (now == UserCode.NO_TIME) {
            throw new IllegalStateException("purgatory '" + engine.name() + "': its clock threw (logged), so the"
                    + " ages of its pending operations cannot be read");
        }
        PendingList list = new PendingList(limit, byDue, nanos(engine.admission().minDelayMs()), now);
        if (!byDue || engine.admission().oneDelay() || !list.fromTimer(engine)) { // one delay: due order = watch order
            for (WatcherList watcherList : engine.lists()) {
                watcherList.collect(list);
            }
        }
        long shownAt = engine.nowNanos(); // after every watch time read: no age below 0
        long ageFrom = shownAt == UserCode.NO_TIME ? now : shownAt;
        return list.kept.stream().sorted(ORDER).map(c -> list.pending(c, ageFrom)).toList();
    }

    /**
     * Soonest due first from the engine's timer, bucket by bucket (its deadlines in its
     * milliseconds as the ranks), for operations of different delays: true iff that found
     * {@code limit} operations, which no other can beat (one with no timeout is due last). Else
     * (fewer, a timer not this library's, a driver busy past ASK_TIMER_NANOS) it keeps nothing,
     * and the caller walks every list. With one delay the walk is quicker: it stops after about
     * {@code limit}, where a bucket may hold every operation watched in a second.
     */
    private boolean fromTimer(Engine engine) {
        if (!engine.isTimed()) {
            return false;
        }
        DueVisitor visitor = new DueVisitor() {
            @Override
            public boolean wants(long fromMs) {
                return keeps(fromMs);
            }

            @Override
            public void visit(TimerEntry entry, long deadlineMs) {
                if (entry instanceof Operation op && op.owner != null && op.owner.engine() == engine) {
                    offerDue(op, deadlineMs);
                }
            }
        };
        if (EntryAccess.get().visitByDue(engine.runtime().timer(), visitor, ASK_TIMER_NANOS)
                && kept.size() == limit) {
            return true;
        }
        kept.clear();
        return false;
    }

    /** Offers {@code op}, on the timer due at {@code deadlineMs}, unless it settled or left its keys meanwhile. */
    private void offerDue(Operation op, long deadlineMs) {
        Watching place = op.watching;
        if (place == null || OperationState.isSettled(op) || !keeps(deadlineMs)) {
            return;
        }
        keep(op, place, deadlineMs, watchedNanos(op, (place instanceof WatchNode n ? n.watchers : (Watchers) place)
                .activatedNanos));
    }

    /** Walks the active keys of the ring through {@code start}, not itself one (under their watcher list's lock). */
    void walk(Watchers start) {
        for (Watchers w = start.activeNext; w != start; w = w.activeNext) {
            if (!keeps(byDue ? after(w.activatedNanos, minDelayNanos) : w.activatedNanos)) {
                return; // (Watchers K8): no later key has an operation to keep
            }
            w.offerPending(this);
        }
    }

    /**
     * Offers {@code op}, watching at {@code place}, its key's activation time {@code floorNanos};
     * returns false when no later operation of the same list in watch order can be kept.
     */
    boolean offer(Operation op, Watching place, long floorNanos) {
        long watched = watchedNanos(op, floorNanos);
        long key = byDue ? dueNanos(op, watched) : watched;
        if (!keeps(key)) { // a later one in watch order is no older, nor due before watched + the least delay
            return byDue && keeps(after(watched, minDelayNanos));
        }
        keep(op, place, key, watched);
        return true;
    }

    /** When {@code op} was watched: its word's stamp, else (no clock reading then) its key's activation. */
    private long watchedNanos(Operation op, long floorNanos) {
        long s = op.state;
        return (s & OperationState.TIMED) != 0 ? OperationState.watchedAtNanos(s, nowNanos) : floorNanos;
    }

    private void keep(Operation op, Watching place, long sortKey, long watchedNanos) {
        Candidate c = kept.size() == limit ? kept.poll() : new Candidate();
        c.op = op;
        c.place = place;
        c.sortKey = sortKey;
        c.watchedNanos = watchedNanos;
        kept.add(c);
    }

    /** Whether a candidate ranked by {@code sortKey} is kept: the list is not full, or it beats the worst kept. */
    private boolean keeps(long sortKey) {
        return kept.size() < limit || Long.compare(sortKey, kept.peek().sortKey) < 0;
    }

    private static long dueNanos(Operation op, long watched) {
        return after(watched, nanos(op.delayMs()));
    }

    /** {@code ms} (0 if below) in nanoseconds, Long.MAX_VALUE if that does not fit. */
    private static long nanos(long ms) {
        return ms >= Long.MAX_VALUE / 1_000_000 ? Long.MAX_VALUE : Math.max(0L, ms) * 1_000_000;
    }

    /** {@code at + nanos} ({@code nanos >= 0}), Long.MAX_VALUE where it would pass it: later than any other time. */
    private static long after(long at, long nanos) {
        return at > Long.MAX_VALUE - nanos ? Long.MAX_VALUE : at + nanos;
    }

    /** What an operator reads of {@code c}: its keys in the order it was given them, its position (Watchers K3). */
    private Pending pending(Candidate c, long shownAtNanos) {
        List<Object> keys = new ArrayList<>();
        Long position = null;
        if (c.place instanceof Watchers one) {
            keys.add(one.key);
        }
        for (WatchNode n = c.place instanceof WatchNode first ? first : null; n != null; n = n.nextOfOperation) {
            keys.add(0, n.watchers.key); // the chain starts at the key linked last
            if (position == null && n instanceof PositionNode positioned) {
                position = positioned.position;
            }
        }
        return new Pending(c.op, keys, position, Math.max(0L, shownAtNanos - c.watchedNanos),
                OperationState.wasChecked(c.op));
    }
}
