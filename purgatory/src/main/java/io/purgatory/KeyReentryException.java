package io.purgatory;

/**
 * Thrown to a call that a watch key's {@code hashCode} or {@code equals} made back into the
 * purgatory while the purgatory was calling that method (WatcherList K9): the call is refused
 * before it changes anything, and what the key's method then throws is handled as any failure of
 * that key.
 */
final class KeyReentryException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    KeyReentryException() {
        super("a watch key's hashCode or equals called back into the purgatory while the purgatory was calling it;"
                + " a key's methods must not use the purgatory");
    }
}
