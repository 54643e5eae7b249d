package io.purgatory.examples.spring.javadoc;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.KeyedWaits;
import io.purgatory.PurgatoryRuntime;
import io.purgatory.examples.spring.Payment;
import io.purgatory.spring.PurgatoryFactory;
import io.purgatory.spring.PurgatoryProperties;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;

/**
 * PurgatoryFactory's example, verbatim (examples' JavadocExamplesTest keeps the javadoc's copy in
 * sync with this one), and what the bean it declares is.
 */
class PurgatoryFactoryExampleTest {

    @Bean
    KeyedWaits<String, Payment> payments(PurgatoryFactory purgatories) {
        return purgatories.keyedWaits("payments")
                .retainEvents(Duration.ofSeconds(30), 100_000)
                .build();
    }

    @Test
    void payments_areKeyedWaitsOnTheFactorysRuntime_withTheirEarlyEventWindow() {
        PurgatoryRuntime runtime = PurgatoryRuntime.builder("application").build();
        KeyedWaits<String, Payment> payments = payments(new PurgatoryFactory(runtime, new PurgatoryProperties(),
                () -> null));

        assertThat(payments.name()).isEqualTo("payments");
        assertThat(payments.retentionWindow()).isEqualTo(Duration.ofSeconds(30));
        runtime.close();
        assertThat(payments.isClosed()).as("closed by the runtime's close").isTrue();
    }
}
