package io.purgatory;

/**
 * Told of each event of {@link KeyedWaits} that found no wait: to route it to a log, a
 * dead-letter topic, an alert. Given to {@link KeyedWaitsBuilder#unansweredEvents}; the same
 * events are counted whether or not a listener is given ({@code purgatory.events.unanswered}
 * and {@code purgatory.events.late}, never tagged by key).
 *
 * <p>Called like any user code: whatever it throws is logged and changes nothing of the event or
 * the waits. It runs on the thread that decided the event found no one: the caller of
 * {@code complete}, or, for an event kept as an early event, the thread that ended its window
 * (the timer's) or replaced it. Keep it quick; it must not block (hand the event to a queue or an
 * asynchronous send).
 */
@FunctionalInterface
public interface UnansweredEventListener {

    /**
     * {@code value}, handed over for {@code key} to the keyed waits named {@code purgatory},
     * answered no wait, as {@code kind} says.
     */
    void onUnanswered(String purgatory, Object key, Object value, Kind kind);

    /** Why an event found no wait. */
    enum Kind {
        /**
         * No wait took it: none was waiting on its key when it arrived, nor, if it was kept as an
         * early event, registered within its window (it left the window unused: ended, replaced by
         * a newer event of its key, or evicted for capacity).
         */
        UNANSWERED,
        /**
         * It arrived after a wait on its key had timed out or been cancelled, within the window
         * of {@link KeyedWaitsBuilder#lateEvents}: the answer that wait was missing, too late.
         */
        LATE
    }
}
