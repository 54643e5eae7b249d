/**
 * A hierarchical timing-wheel timer (Varghese &amp; Lauck; Kafka's design), with O(1) lock-free
 * add and cancel and no idle ticking.
 *
 * <p>Start with {@link io.purgatory.timer.Timer} and {@link io.purgatory.timer.TimerTask}.
 * {@link io.purgatory.timer.SystemTimer} runs on real time, driven by a
 * {@link io.purgatory.timer.SystemTimerReaper} or by a purgatory's reaper;
 * {@link io.purgatory.timer.ManualTimer} on a {@link io.purgatory.timer.ManualClock} is the
 * deterministic mode for tests: time moves only when the test moves it.
 */
package io.purgatory.timer;
