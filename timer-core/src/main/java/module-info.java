/**
 * A hierarchical timing-wheel timer with a deterministic manual mode: the package
 * {@link io.purgatory.timer}.
 *
 * <p>The module name is {@code io.purgatory.timer}, after its one package, and stays so: it is
 * what a {@code requires} names. The package is exported whole; it has no internals in other
 * packages. Logging goes through SLF4J ({@code org.slf4j}), which no public signature exposes.
 */
module io.purgatory.timer {
    requires org.slf4j;

    exports io.purgatory.timer;
}
