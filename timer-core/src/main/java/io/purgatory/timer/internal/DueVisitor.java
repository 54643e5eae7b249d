package io.purgatory.timer.internal;

import io.purgatory.timer.TimerEntry;

/**
 * What reads a timer's scheduled entries soonest due first, bucket by bucket ({@link
 * EntryAccess#visitByDue}): it is asked, before each bucket, whether it still wants entries due
 * from that bucket's earliest deadline on, and is shown each scheduled entry of the buckets it
 * wants, with its deadline. Runs under the timer's driver lock: it must be quick, call no user
 * code and touch no timer.
 */
public interface DueVisitor {

    /** False once no entry due at or after {@code fromMs} (the timer's milliseconds) can matter: the walk stops. */
    boolean wants(long fromMs);

    /** A scheduled entry, due at {@code deadlineMs} (the timer's milliseconds). */
    void visit(TimerEntry entry, long deadlineMs);
}
