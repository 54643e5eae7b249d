package io.purgatory.internal;

import io.purgatory.internal.Operation.Owner;
import io.purgatory.internal.Watchers.WatchNode;
import io.purgatory.timer.Timer;
import java.util.ArrayList;
import java.util.List;

/**
 * What the tests of {@code io.purgatory} read of an operation's engine state and of a runtime,
 * which the engine keeps package-private: where an operation watches, its links, its owner and its
 * state word. Read-only, for tests in quiescence.
 */
public final class EngineInternals {

    /** Emptied key lists a watcher list keeps for reuse (WatcherList K5). */
    public static final int MAX_EMPTY_KEPT = WatcherList.MAX_EMPTY_KEPT;

    private EngineInternals() {
    }

    /** The key of the list {@code op} is linked on itself (watching one key, Watchers K3), else null. */
    public static Object listKey(Operation op) {
        return op.watching instanceof Watchers watchers ? watchers.key : null;
    }

    /** The keys of {@code op}'s WatchNodes (several keys, or a position), in its chain's order; empty if none. */
    public static List<Object> nodeKeys(Operation op) {
        List<Object> keys = new ArrayList<>();
        if (op.watching instanceof WatchNode first) {
            for (WatchNode node = first; node != null; node = node.nextOfOperation) {
                keys.add(node.watchers.key);
            }
        }
        return keys;
    }

    /** True iff {@code op} reaches nothing through its watch fields (Watchers K2): no list, no node, no link. */
    public static boolean holdsNoWatchLink(Operation op) {
        return op.watching == null && op.prev == null && op.next == null;
    }

    /** The previous operation on the list of {@code op}'s one key, or null. */
    public static Operation prev(Operation op) {
        return op.prev;
    }

    /** The next operation on the list of {@code op}'s one key, or null. */
    public static Operation next(Operation op) {
        return op.next;
    }

    /** The engine {@code op} is submitted to (its owner's engine, OperationState O6), or null. */
    public static Object ownerEngine(Operation op) {
        Owner owner = op.owner;
        return owner == null ? null : owner.engine();
    }

    /** True iff {@code op}'s owner is a WaitOwner (Engine N6). */
    public static boolean isObserved(Operation op) {
        return op.owner instanceof WaitOwner;
    }

    /** {@code op}'s state word (OperationState): 0 for one never submitted nor settled. */
    public static long state(Operation op) {
        return op.state;
    }

    /** Runs every open engine's purge policy on {@code runtime}, as its driver does after each advance. */
    public static void runPurgePolicies(RuntimeCore runtime) {
        runtime.runPurgePolicies();
    }

    /** The timer {@code runtime} runs on. */
    public static Timer timer(RuntimeCore runtime) {
        return runtime.timer();
    }

}
