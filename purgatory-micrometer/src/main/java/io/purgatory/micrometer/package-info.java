/**
 * Micrometer meters for purgatories: {@link io.purgatory.micrometer.MicrometerMetrics}.
 */
package io.purgatory.micrometer;
