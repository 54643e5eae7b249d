/**
 * A Kafka-style delayed-operation purgatory: the package {@link io.purgatory}.
 *
 * <p>The module name is {@code io.purgatory}, after its one package, and stays so: it is what a
 * {@code requires} names. Its public signatures use the timer's types ({@code TimerTask},
 * {@code Timer}, {@code Clock}) and Micrometer's ({@code MeterRegistry}, {@code MeterBinder}), so
 * a module that requires {@code io.purgatory} reads both without requiring them itself.
 */
module io.purgatory {
    requires transitive io.purgatory.timer;
    // Micrometer is mandatory for now: the purgatory creates its meters whether or not a registry
    // is given, so "requires static" would fail at run time on a module path without it. It
    // becomes optional when the metrics move to a module of their own. micrometer-core has no
    // module descriptor: "micrometer.core" is the Automatic-Module-Name in its manifest.
    requires transitive micrometer.core;
    requires org.slf4j;

    exports io.purgatory;
}
