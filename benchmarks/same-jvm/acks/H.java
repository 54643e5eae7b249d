import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongUnaryOperator;

/** The acks trigger path on one thread: applyAsLong(n): n rounds of (submit one op on 3 keys if the window allows, ack one key); returns CPU ns. */
public final class H implements LongUnaryOperator, AutoCloseable {
    static final int KEYS = 1000, WINDOW = 10_000;
    final long[] offsets = new long[KEYS];
    final class Op extends DelayedOperation {
        final int[] ks; final long[] need;
        Op(int[] ks) { super(30_000); this.ks = ks; need = new long[ks.length]; for (int j = 0; j < ks.length; j++) need[j] = offsets[ks[j]] + 1; }
        @Override protected boolean tryComplete() {
            for (int j = 0; j < ks.length; j++) if (offsets[ks[j]] < need[j]) return false;
            return forceComplete();
        }
        @Override protected void onComplete() { completed++; }
        @Override protected void onExpiration() { }
    }
    final DelayedOperationPurgatory<Op> p = new DelayedOperationPurgatory<>("h" + System.identityHashCode(this));
    final Integer[] keyObjs = new Integer[KEYS];
    final SplittableRandom r = new SplittableRandom(42);
    final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    long submitted, completed;
    public H() { for (int k = 0; k < KEYS; k++) keyObjs[k] = Integer.valueOf(k + 1_000_000); }
    @Override public long applyAsLong(long n) {
        if (n < 0) return completed;
        long c0 = mx.getCurrentThreadCpuTime();
        for (long i = 0; i < n; i++) {
            if (submitted - completed < WINDOW) {
                int a = r.nextInt(KEYS), b, c;
                do { b = r.nextInt(KEYS); } while (b == a);
                do { c = r.nextInt(KEYS); } while (c == a || c == b);
                int[] ks = {a, b, c};
                p.tryCompleteElseWatch(new Op(ks), List.of(keyObjs[a], keyObjs[b], keyObjs[c]));
                submitted++;
            }
            int k = r.nextInt(KEYS);
            offsets[k]++;
            p.checkAndComplete(keyObjs[k]);
        }
        return mx.getCurrentThreadCpuTime() - c0;
    }
    @Override public void close() { p.close(); }
}
