package io.purgatory.examples.javadoc;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.TimerTask;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** ManualTimer's example, verbatim (JavadocExamplesTest): a test of code that uses a timeout. */
class ManualTimerExampleTest {

    @Test
    void advanceClock_pastTheDelay_runsTheTaskBeforeItReturns() {
        ManualTimer timer = new ManualTimer();
        AtomicBoolean ran = new AtomicBoolean();
        timer.add(new TimerTask(Duration.ofSeconds(30)) {
            @Override
            public void run() {
                ran.set(true);
            }
        });

        timer.advanceClock(Duration.ofSeconds(29));
        assertFalse(ran.get());                  // not due yet: nothing ran
        timer.advanceClock(Duration.ofSeconds(1));
        assertTrue(ran.get());                   // due: it ran on this thread, before advanceClock returned
    }
}
