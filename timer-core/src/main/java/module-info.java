/**
 * A hierarchical timing-wheel timer with a deterministic manual mode: the package
 * {@link io.purgatory.timer}.
 *
 * <p>The module name is {@code io.purgatory.timer}, after its public package, and stays so: it is
 * what a {@code requires} names. The package {@code io.purgatory.timer.internal} is exported to
 * the purgatory only: what a library built on the timer may do with entries of its own. Logging
 * goes through SLF4J ({@code org.slf4j}), which no public signature exposes.
 */
@SuppressWarnings("module") // the purgatory is not built yet when this module compiles
module io.purgatory.timer {
    requires org.slf4j;

    exports io.purgatory.timer;
    exports io.purgatory.timer.internal to io.purgatory;
}
