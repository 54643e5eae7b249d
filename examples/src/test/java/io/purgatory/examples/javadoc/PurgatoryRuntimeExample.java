package io.purgatory.examples.javadoc;

import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.KeyedWaits;
import io.purgatory.Purgatory;
import io.purgatory.PurgatoryRuntime;
import java.util.List;

/** PurgatoryRuntime's example, verbatim (JavadocExamplesTest). */
final class PurgatoryRuntimeExample {

    private PurgatoryRuntimeExample() {
    }

    /** Runs the example; returns the two purgatories it built and closed. */
    static List<Purgatory> run() {
        PurgatoryRuntime runtime = PurgatoryRuntime.builder("orders").build();
        DelayedOperationPurgatory<DelayedPayment> payments = DelayedOperationPurgatory.builder("payments")
                .runtime(runtime)
                .build();
        KeyedWaits<String, String> shipments = KeyedWaits.builder("shipments").runtime(runtime).build();
        // ... at shutdown: closes both purgatories, each by its close policy, then the timer and its threads
        runtime.close();
        return List.of(payments, shipments);
    }
}
