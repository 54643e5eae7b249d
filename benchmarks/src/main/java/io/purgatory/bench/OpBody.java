package io.purgatory.bench;

/**
 * What a workload's delayed operation checks and does, whichever purgatory holds it. Each
 * {@link PurgatoryUnderTest} wraps a body in its own operation class, the same thin shape for
 * every implementation: tryComplete is {@code canComplete() && forceComplete()}.
 */
public interface OpBody {

    /** A body that never completes and ignores its callbacks (a shared instance: no per-operation state). */
    OpBody NEVER = new OpBody() {
        @Override
        public boolean canComplete() {
            return false;
        }
    };

    /** The completion condition; called under the operation's lock. */
    boolean canComplete();

    /** onComplete: runs once, on completion or expiry. */
    default void completed() {
    }

    /** onExpiration: runs after {@link #completed()} when the operation expired. */
    default void expired() {
    }
}
