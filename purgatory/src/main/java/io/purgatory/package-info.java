/**
 * A Kafka-style delayed-operation purgatory: operations wait, watched on keys, until an event
 * completes them ({@link DelayedOperationPurgatory#checkAndComplete}) or their timeout expires
 * them. Each type's class comment tells its costs and threads; the main ones have an example.
 *
 * <h2>Entry points</h2>
 * <ul>
 *   <li>{@link DelayedOperation}: the operation you write, as in Kafka: {@code tryComplete},
 *       {@code onComplete}, {@code onExpiration}.
 *   <li>{@link DelayedOperationPurgatory}: holds operations on their keys until a
 *       {@code checkAndComplete(key)} completes them or they expire.
 *   <li>{@link PurgatoryBuilder}: builds one: its timer (a {@link io.purgatory.timer.ManualTimer}
 *       in tests), shards, limit of pending operations, metrics, error handler, close policy.
 *   <li>{@link KeyedWaits}: waits for business events by key, without writing an operation:
 *       {@code await(key, timeout)} returns a future that {@code complete(key, value)} answers;
 *       built by a {@link KeyedWaitsBuilder} (early events kept for a window, its timer...).
 *   <li>{@link DelayedCondition}: a wait for a condition on a purgatory's keys, as a future of
 *       its outcome, without a subclass.
 *   <li>{@link DelayedFuturePurgatory}: waits for lists of futures, with a timeout (Kafka's); each
 *       wait is a {@link DelayedFuture}.
 *   <li>{@link PurgatoryRuntime}: one timer, driver thread and expiration executor shared by the
 *       purgatories built on it.
 *   <li>{@link Purgatory}: what every purgatory has (name, stats, metrics binding, close), so
 *       integrations handle all kinds alike.
 * </ul>
 *
 * <h2>Outcomes, limits and errors</h2>
 * <ul>
 *   <li>{@link Outcome}: how an operation was settled: completed, expired or cancelled.
 *   <li>{@link ClosePolicy}: what {@code close()} does with the operations still pending.
 *   <li>{@link PurgatoryStats}: a snapshot of a purgatory's counters, read in O(1).
 *   <li>{@link OperationErrorHandler}: receives what operations' callbacks throw.
 *   <li>{@link PurgatoryFullException}: the refusal of a submission beyond {@code maxPending}.
 *   <li>{@link WaitTimeoutException}: how a keyed wait that no event answered ends, at its
 *       timeout or at close.
 *   <li>{@link UnansweredEventListener}: told of each event of keyed waits that found no wait,
 *       unanswered or late (given to {@code KeyedWaitsBuilder.unansweredEvents}).
 * </ul>
 *
 * <h2>The operators' view</h2>
 * <ul>
 *   <li>{@link Purgatory#listPending}: the pending operations, oldest first or soonest due first
 *       ({@link PendingOrder}), each a {@link PendingOperation}, its keys shown by a
 *       {@link KeyRenderer} (keys can hold personal data: the renderer is your choice).
 *   <li>{@link Purgatory#topTenants}: with a tenant bound ({@code tenants(fn, max)} on a builder),
 *       the tenants with the most pending operations, each a {@link TenantUsage}; a submission over
 *       its tenant's bound is refused with a {@link TenantFullException}.
 * </ul>
 *
 * <h2>Observing each wait</h2>
 * A {@link WaitObserver} given to a builder is told when each wait starts (a {@link WaitStart})
 * and how it ended (a {@link WaitOutcome}): the seam {@code purgatory-micrometer}'s
 * {@code MicrometerObservations} makes an observation (a trace span) of each wait through.
 *
 * <h2>Metrics</h2>
 * The core depends on no metrics library; a metrics system binds through three types:
 * {@link MetricsRecorderFactory} binds each purgatory, reading its live numbers from a
 * {@link MetricsSource}, and returns the {@link MetricsRecorder} its durations go to. The
 * {@code purgatory-micrometer} module's {@code MicrometerMetrics} is the one for Micrometer.
 */
package io.purgatory;
