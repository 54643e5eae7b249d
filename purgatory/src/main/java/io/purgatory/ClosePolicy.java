package io.purgatory;

/** What {@link DelayedOperationPurgatory#close()} does with the operations still pending. */
public enum ClosePolicy {
    /** Expire them now: {@code onComplete} then {@code onExpiration}, as if their delay had passed (default). */
    EXPIRE,
    /** Complete them now: {@code onComplete} only. */
    COMPLETE,
    /** Cancel them: {@code onCancel} only. */
    CANCEL
}
