package io.purgatory;

import java.util.Objects;

/**
 * How {@link Purgatory#listPending} shows a watch key. Keys can hold personal data (an e-mail, an
 * account): showing them is your choice. Called like any user code: what it throws shows the key
 * as {@code "?"} and is logged.
 */
@FunctionalInterface
public interface KeyRenderer {

    /** Keys hidden: each shows as {@code "*"}. */
    KeyRenderer HIDDEN = key -> "*";

    /** The default: {@code toString()}, cut to 64 characters. */
    KeyRenderer DEFAULT = truncated(64);

    /** {@code key} as an operator may read it. */
    String render(Object key);

    /**
     * {@code toString()}, cut to {@code maxChars} characters (an ellipsis marks the cut).
     *
     * @throws IllegalArgumentException if {@code maxChars} is below 1
     */
    static KeyRenderer truncated(int maxChars) {
        if (maxChars < 1) {
            throw new IllegalArgumentException("maxChars must be >= 1: " + maxChars);
        }
        return key -> {
            String s = Objects.toString(key);
            return s.length() <= maxChars ? s : s.substring(0, maxChars) + "…";
        };
    }
}
