package io.purgatory.examples.javadoc;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The application state the javadoc examples wait on: which orders are paid. Thread-safe. */
final class Orders {

    private final Set<String> paid = ConcurrentHashMap.newKeySet();

    boolean isPaid(String orderId) {
        return paid.contains(orderId);
    }

    void markPaid(String orderId) {
        paid.add(orderId);
    }
}
