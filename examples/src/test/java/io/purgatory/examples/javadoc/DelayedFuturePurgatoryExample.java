package io.purgatory.examples.javadoc;

import io.purgatory.DelayedFuturePurgatory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** DelayedFuturePurgatory's example, verbatim (JavadocExamplesTest). */
final class DelayedFuturePurgatoryExample {

    private DelayedFuturePurgatoryExample() {
    }

    /** Runs the example; returns the purgatory, for the caller to close. */
    static DelayedFuturePurgatory run(CompletableFuture<Long> replica1, CompletableFuture<Long> replica2,
                                      CompletableFuture<Boolean> reply) {
        DelayedFuturePurgatory acks = new DelayedFuturePurgatory("acks");

        // answers once both replicas acknowledged, or after 5 s (the acks still pending then fail)
        List<CompletableFuture<Long>> replicas = List.of(replica1, replica2);
        acks.tryCompleteElseWatch(Duration.ofSeconds(5), replicas,
                () -> reply.complete(replicas.stream().noneMatch(CompletableFuture::isCompletedExceptionally)));
        return acks;
    }
}
