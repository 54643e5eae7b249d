package io.purgatory.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The settle probe at a tiny size: every operation it watches expires (it throws otherwise); bad sizes are refused. */
class SettleCostTest {

    @Test
    void run_tinySizeOnTwoThreads_expiresEveryOperationAndExitsZero() throws Exception {
        assertEquals(0, SettleCost.run(new String[] {"2000", "2", "1"}));
    }

    @Test
    void run_zeroThreads_isRefusedWithUsage() throws Exception {
        assertEquals(2, SettleCost.run(new String[] {"2000", "0"}));
    }
}
