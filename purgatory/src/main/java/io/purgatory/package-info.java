/**
 * A Kafka-style delayed-operation purgatory: operations wait, watched on keys, until an event
 * completes them ({@link io.purgatory.DelayedOperationPurgatory#checkAndComplete}) or their
 * timeout expires them.
 *
 * <p>Start with {@link io.purgatory.DelayedOperation} and
 * {@link io.purgatory.DelayedOperationPurgatory}; for waits without a subclass, see
 * {@link io.purgatory.DelayedCondition} and {@link io.purgatory.DelayedFuturePurgatory}. To share
 * one timer and its threads among several purgatories, build them on one
 * {@link io.purgatory.PurgatoryRuntime}.
 */
package io.purgatory;
