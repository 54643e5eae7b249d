/**
 * Binds purgatories and keyed waits to a Micrometer {@code MeterRegistry}, and observes each wait
 * in an {@code ObservationRegistry}: the package {@link io.purgatory.micrometer}. Requires
 * {@code io.purgatory} and Micrometer, and reads both for its users (its public signatures use
 * their types).
 */
module io.purgatory.micrometer {
    requires transitive io.purgatory;
    // micrometer-core has no module descriptor: "micrometer.core" is the Automatic-Module-Name
    // in its manifest.
    requires transitive micrometer.core;
    // The Observation API and its KeyValues (micrometer-observation, micrometer-commons): likewise
    // automatic modules.
    requires transitive micrometer.observation;
    requires transitive micrometer.commons;
    requires org.slf4j;

    exports io.purgatory.micrometer;
}
