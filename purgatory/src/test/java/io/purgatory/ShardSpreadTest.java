package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * The shard of a key and its bucket in the shard's HashMap come from different bits of its hash:
 * keys of one shard spread over the map's buckets instead of piling into one.
 */
class ShardSpreadTest {

    private static final int KEYS = 1 << 16;
    private static final int SHARDS = 512;

    @Test
    void listIndex_manyKeysOfEachKind_keysOfOneShardSpreadOverTheBucketsOfItsMap() {
        DelayedOperationPurgatory<MockOperation> purgatory = DelayedOperationPurgatory.<MockOperation>builder("spread")
                .shards(SHARDS).timerEnabled(false).reaperEnabled(false).build();
        try (purgatory) {
            for (IntFunction<Object> keys : List.<IntFunction<Object>>of(i -> i, i -> (long) i, i -> "order-" + i)) {
                List<Set<Integer>> buckets = new ArrayList<>();
                for (int shard = 0; shard < SHARDS; shard++) {
                    buckets.add(new HashSet<>());
                }
                int[] perShard = new int[SHARDS];
                for (int i = 0; i < KEYS; i++) {
                    Object key = keys.apply(i);
                    int shard = purgatory.engine().listIndex(key);
                    perShard[shard]++;
                    int h = key.hashCode();
                    int bucket = (h ^ (h >>> 16)) & 255; // HashMap's bucket of a 128-key map (capacity 256)
                    buckets.get(shard).add(bucket);
                }
                for (int shard = 0; shard < SHARDS; shard++) {
                    assertThat(perShard[shard]).as("keys of shard %d", shard).isBetween(64, 256);
                    assertThat(buckets.get(shard)).as("buckets used in shard %d", shard).hasSizeGreaterThan(32);
                }
            }
        }
    }

    @Test
    void listIndex_oneShard_isZeroForEveryKey() {
        DelayedOperationPurgatory<MockOperation> purgatory = DelayedOperationPurgatory.<MockOperation>builder("one")
                .shards(1).timerEnabled(false).reaperEnabled(false).build();
        try (purgatory) {
            assertThat(purgatory.engine().listIndex(-1)).isZero();
            assertThat(purgatory.engine().listIndex("x")).isZero();
        }
    }
}
