/**
 * A Kafka-style delayed-operation purgatory: the package {@link io.purgatory}.
 *
 * <p>The module name is {@code io.purgatory}, after its one package, and stays so: it is what a
 * {@code requires} names. Its public signatures use the timer's types ({@code TimerTask},
 * {@code Timer}, {@code Clock}), so a module that requires {@code io.purgatory} reads them without
 * requiring them itself. It needs no metrics library: metrics go through
 * {@code MetricsRecorderFactory}, which the {@code io.purgatory.micrometer} module implements.
 */
module io.purgatory {
    requires transitive io.purgatory.timer;
    requires org.slf4j;
    requires static com.google.errorprone.annotations;

    exports io.purgatory;
}
