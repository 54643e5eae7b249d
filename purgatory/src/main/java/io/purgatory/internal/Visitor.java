package io.purgatory.internal;

/** What a visit of a key ({@link Engine#visit}) does with each operation watching it. */
@FunctionalInterface
public interface Visitor {

    /** Visits {@code op} with {@code event} (a check's null, an event's value); true if that settled it. */
    boolean visit(Operation op, Object event);
}
