package io.purgatory.internal;

import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;

/**
 * Validation of the watch keys given to a purgatory: no null, a hashCode that answers, duplicates
 * dropped in order. A bad key set is refused before the operation is touched.
 */
public final class WatchKeys {

    private static final int SMALL_KEY_SET = 8;

    private WatchKeys() {
    }

    /**
     * {@code key}, at {@code index} of the keys given: not null, and its hashCode answers (the
     * call fails at once, before anything uses the key, if it throws).
     *
     * @throws NullPointerException naming the keys and the index if it is null
     * @throws IllegalArgumentException naming the index if its hashCode throws
     */
    public static Object check(Object key, int index) {
        if (key == null) {
            throw new NullPointerException("watchKeys contains null (at index " + index + ")");
        }
        try {
            int unused = key.hashCode();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("hashCode() of watch key at index " + index + " threw "
                    + e.getClass().getName(), e); // by its class: its message is user code too
        }
        return key;
    }

    /** Validates and returns the one key of {@code watchKeys}, a collection of size 1. */
    public static Object only(Collection<?> watchKeys) {
        return check(watchKeys instanceof List<?> list ? list.get(0) : watchKeys.iterator().next(), 0);
    }

    /**
     * Validates the keys and drops duplicates, keeping their order.
     *
     * @throws IllegalArgumentException if there are none, or a key's equals or hashCode throws
     */
    public static Object[] distinct(Collection<?> watchKeys) {
        Object[] keys = Objects.requireNonNull(watchKeys, "watchKeys").toArray();
        if (keys.length == 0) {
            throw new IllegalArgumentException("watchKeys must not be empty");
        }
        for (int i = 0; i < keys.length; i++) {
            check(keys[i], i);
        }
        try {
            if (keys.length <= SMALL_KEY_SET) {
                return distinctSmall(keys);
            }
            return new LinkedHashSet<>(List.of(keys)).toArray();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("equals() or hashCode() of a watch key threw " + e.getClass().getName(),
                    e);
        }
    }

    private static Object[] distinctSmall(Object[] keys) {
        int n = 0;
        outer:
        for (Object key : keys) {
            for (int j = 0; j < n; j++) {
                if (keys[j].equals(key)) {
                    continue outer;
                }
            }
            keys[n++] = key;
        }
        return n == keys.length ? keys : Arrays.copyOf(keys, n);
    }
}
