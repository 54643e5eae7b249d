/**
 * A hierarchical timing-wheel timer (Varghese &amp; Lauck; Kafka's design), with O(1) lock-free
 * add and cancel and no idle ticking.
 *
 * <h2>Entry points</h2>
 * <ul>
 *   <li>{@link Timer}: adds tasks and runs each once its delay has passed; its class comment
 *       states the delay and duration rules every timer follows.
 *   <li>{@link TimerTask}: the task you write; it is its own list node, so scheduling allocates
 *       nothing more.
 *   <li>{@link TimerEntry}: what a timer schedules, the bookkeeping without a task's methods,
 *       for a library whose own objects are timer entries (the purgatory's operations are).
 *   <li>{@link SystemTimer}: the timer on real time, driven by whoever calls
 *       {@code advanceClock}; built by its builder (tick, wheel size, executor, clock).
 *   <li>{@link SystemTimerReaper}: a timer together with the thread that drives it, for a timer
 *       without a purgatory.
 *   <li>{@link TimerDriver}: the daemon thread that drives a timer, and nothing else.
 *   <li>{@link ManualTimer}: the deterministic timer for tests: time moves only when the test
 *       advances it, and due tasks run on the test's thread.
 *   <li>{@link ManualClock}: the clock of a {@code ManualTimer}, moved only when told to.
 * </ul>
 *
 * <h2>Settings and seams</h2>
 * <ul>
 *   <li>{@link TimerSettings}: a wheel's tick and size and the back-pressure bound, validated.
 *   <li>{@link Clock}: the one time base (monotonic nanoseconds) that tests replace.
 *   <li>{@link TaskErrorHandler}: receives what tasks throw.
 *   <li>{@link DaemonThreads}: the factory of the library's named daemon threads.
 * </ul>
 */
package io.purgatory.timer;
