package io.purgatory;

import io.purgatory.OperationErrorHandler.Callback;
import io.purgatory.internal.Engine;
import io.purgatory.internal.EventRetention;
import io.purgatory.internal.KeyedEvents;
import io.purgatory.internal.OperationState;

/**
 * The live readings of one purgatory (or of one {@link KeyedWaits}), for a
 * {@link MetricsRecorderFactory} to publish as gauges and counters. Each read is O(1) and
 * allocates nothing; reads made one after another under load may be mutually inconsistent, as in
 * {@link PurgatoryStats}. Counters only grow; gauges are never negative.
 */
public final class MetricsSource {

    private final Engine engine;
    /** The events of keyed waits, or null. */
    private final KeyedEvents<?> events;
    /** Their early events' retention, or null. */
    private final EventRetention<?> retention;

    MetricsSource(Engine engine, KeyedEvents<?> events) {
        this.engine = engine;
        this.events = events;
        this.retention = events == null ? null : events.retention();
    }

    /** The purgatory's name: the one tag its metrics carry. Never a key. */
    public String name() {
        return engine.name();
    }

    /** Operations watched and not yet settled (a gauge). */
    public long pending() {
        return engine.counters().pending();
    }

    /** Watch entries: a pending operation counts once per key (a gauge). */
    public long watched() {
        return engine.counters().entries();
    }

    /** Keys with at least one pending operation (a gauge). */
    public long keys() {
        return engine.counters().keys();
    }

    /** Operations completed after they were watched. */
    public long completed() {
        return engine.counters().completedWatched();
    }

    /**
     * Operations completed by the try made when they were submitted, before they were ever
     * watched: waits whose event had already happened. Adding it to {@link #completed()} gives
     * every completion.
     */
    public long completedAtOnce() {
        return engine.counters().completedAtOnce();
    }

    /** Operations expired. */
    public long expired() {
        return engine.counters().settled(OperationState.EXPIRED);
    }

    /** Operations cancelled. */
    public long cancelled() {
        return engine.counters().settled(OperationState.CANCELLED);
    }

    /** Calls of {@code callback} that threw. */
    public long callbackErrors(Callback callback) {
        return engine.counters().callbackErrors(callback.ordinal());
    }

    /** Submissions refused because the purgatory, or their tenant's share of it, was full. */
    public long rejected() {
        return engine.counters().rejectedCount();
    }

    /** Whether operations have tenants ({@code tenants(...)} on the builder): the two reads below are then live. */
    public boolean hasTenants() {
        return engine.admission().hasTenants();
    }

    /** Submissions refused at their tenant's bound (among {@link #rejected()}). */
    public long rejectedForTenant() {
        return engine.counters().rejectedForTenantCount();
    }

    /** Tenants with pending operations. */
    public int tenants() {
        return engine.admission().tenantCount();
    }

    /** Purges of watch lists run by the reaper. */
    public long purges() {
        return engine.counters().purgeCount();
    }

    /** Expirations the expiration executor refused; they ran on the timer's thread (see {@link PurgatoryStats}). */
    public long expirationsRefused() {
        return engine.expirationsRefused();
    }

    /** Whether this is a {@link KeyedWaits} that retains early events: the three reads below are then live. */
    public boolean retainsEvents() {
        return retention != null;
    }

    /**
     * Whether this is a {@link KeyedWaits}, whose events are counted: {@link #eventsUnanswered()}
     * and {@link #eventsLate()} are then live.
     */
    public boolean countsEvents() {
        return events != null;
    }

    /** Early events retained now (a gauge); 0 without retention. */
    public long eventsRetained() {
        return retention == null ? 0 : retention.size();
    }

    /** Waits answered at registration by a retained event; 0 without retention. */
    public long eventsRetainedHits() {
        return retention == null ? 0 : retention.hits();
    }

    /** Retained events dropped before their window ended, for capacity; 0 without retention. */
    public long eventsEvicted() {
        return retention == null ? 0 : retention.evicted();
    }

    /**
     * Events of a {@link KeyedWaits} that answered no wait and were not late: none waited when
     * they arrived, nor, if retained as early events, within their window (counted when they left
     * it). 0 for other purgatories.
     */
    public long eventsUnanswered() {
        return events == null ? 0 : events.unanswered();
    }

    /**
     * Events of a {@link KeyedWaits} that answered no wait and arrived after a wait on their key
     * timed out or was cancelled, within the window of {@link KeyedWaitsBuilder#lateEvents}. 0 for
     * other purgatories, and without that window.
     */
    public long eventsLate() {
        return events == null ? 0 : events.late();
    }
}
