package io.purgatory.bench;

import java.util.List;
import org.apache.kafka.server.purgatory.DelayedOperationKey;

/**
 * A watch key usable by both purgatories: Kafka's needs a {@link DelayedOperationKey}, ours any
 * object with equals/hashCode. The hash is the id put through MurmurHash3's finalizer: well
 * spread, like a real key's, so neither purgatory's shard selection lines keys up in one bucket of
 * its per-shard hash map (with a plain id, keys i and i + 512 share a shard and a map bucket).
 */
public final class BenchKey implements DelayedOperationKey {

    private final int id;
    private final int hash;
    private final List<BenchKey> asList;

    private BenchKey(int id) {
        this.id = id;
        this.hash = mix(id);
        this.asList = List.of(this);
    }

    private static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        return h ^ (h >>> 16);
    }

    /** Keys 0 .. n-1. */
    public static BenchKey[] range(int n) {
        BenchKey[] keys = new BenchKey[n];
        for (int i = 0; i < n; i++) {
            keys[i] = new BenchKey(i);
        }
        return keys;
    }

    public int id() {
        return id;
    }

    /** This key alone, as a watch-key list allocated once (no garbage per operation). */
    public List<BenchKey> asList() {
        return asList;
    }

    @Override
    public String keyLabel() {
        return "bench-" + id;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BenchKey other && other.id == id;
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "BenchKey[" + id + "]";
    }
}
