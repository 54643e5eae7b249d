package io.purgatory.spring;

import java.util.concurrent.CompletableFuture;

/**
 * Tells a keyed wait's future from any other. Only those are cancelled when their web request
 * ends without them: a wait's future belongs to its one caller, and cancelling it ends just that
 * wait. Any other future may be shared (a cache's, a client's), and cancelling it could fail
 * other callers; it is left alone, as Spring MVC leaves it.
 */
final class WaitFutures {

    /** The class of {@code KeyedWaits.await}'s futures (package-private in the library). */
    static final String WAIT_FUTURE_CLASS = "io.purgatory.KeyedWait$WaitFuture";

    private WaitFutures() {
    }

    /** True iff {@code value} is a future returned by {@code KeyedWaits.await} (or {@code on(...).await}). */
    static boolean isWait(Object value) {
        return value instanceof CompletableFuture<?> && value.getClass().getName().equals(WAIT_FUTURE_CLASS);
    }
}
