package io.purgatory.bench;

import java.util.List;

/**
 * How big each workload is. {@link #full()} is the sizes; {@link #quick()} is the CI smoke
 * size (the whole run well under a minute), which checks that the harness works, not performance.
 */
record Sizes(
        boolean warmup,
        long acksMillis, int acksKeys, int acksInFlight,
        int expirationOps, int expirationMinMs, int expirationMaxMs, int expirationKeys,
        long expirationLoadMillis, int expirationLoadMaxOps,
        long capacityStepMillis, List<Integer> capacityRates, boolean capacityStopsAtFailure,
        int memoryOps, int memoryKeys,
        long churnMillis, int churnOutstanding,
        long perfStepMillis, List<Integer> perfRates, int perfCpuRate,
        int jmhForks, int jmhWarmupIterations, int jmhIterations, long jmhIterationMillis,
        int keyedWaits, int keyedPending,
        List<Integer> fanOutWaits, long fanOutBeforeMillis,
        int listOps, int listKeys, long listMillis,
        long tenantMillis,
        long settleMillis) {

    static Sizes full() {
        return new Sizes(true,
                5_000, 1_000, 10_000,
                500_000, 100, 1_100, 1_000,
                3_000, 16_000_000,
                3_000, List.of(25_000, 50_000, 100_000, 200_000, 400_000, 600_000, 800_000, 1_000_000, 1_200_000,
                        1_400_000, 1_600_000, 1_800_000, 2_000_000, 2_200_000, 2_400_000, 2_800_000, 3_200_000,
                        4_000_000), true,
                1_000_000, 10_000,
                3_000, 10_000,
                2_000, List.of(25_000, 50_000, 100_000, 150_000, 200_000, 300_000, 400_000, 600_000, 800_000,
                        1_000_000, 1_200_000, 1_400_000, 1_600_000, 2_000_000, 2_400_000, 2_800_000, 3_200_000), 50_000,
                1, 3, 5, 1_000,
                1_000_000, 100_000,
                List.of(10_000, 100_000, 1_000_000), 200,
                1_000_000, 100_000, 2_000,
                5_000,
                100);
    }

    static Sizes quick() {
        return new Sizes(false,
                150, 1_000, 10_000,
                20_000, 20, 120, 1_000,
                150, 2_000_000,
                150, List.of(20_000, 50_000), false,
                20_000, 10_000,
                150, 1_000,
                150, List.of(5_000, 20_000), 5_000,
                0, 1, 1, 50,
                20_000, 1_000,
                List.of(1_000, 10_000), 50,
                20_000, 2_000, 100,
                150,
                0);
    }
}
