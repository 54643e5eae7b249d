import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongUnaryOperator;

/** One purgatory of the jar this loader sees; applyAsLong(n): n inserts as workload 2 makes them (1,000 keys, delays 100-1,100 ms), returns CPU ns. */
public final class H implements LongUnaryOperator, AutoCloseable {
    static final class Op extends DelayedOperation {
        Op(long d) { super(d); }
        @Override protected boolean tryComplete() { return false; }
        @Override protected void onComplete() { }
        @Override protected void onExpiration() { }
    }
    final DelayedOperationPurgatory<Op> p = new DelayedOperationPurgatory<>("h" + System.identityHashCode(this));
    final List<?>[] keys = new List<?>[1000];
    final long[] delays = new long[1 << 16];
    final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    int i;
    public H() {
        for (int k = 0; k < keys.length; k++) keys[k] = List.of(Integer.valueOf(k + 1_000_000));
        SplittableRandom r = new SplittableRandom(42);
        for (int k = 0; k < delays.length; k++) delays[k] = 100 + r.nextInt(1001);
    }
    @Override public long applyAsLong(long n) {
        if (n < 0) return 0; // the count of completions AB asks for: none here
        long c0 = mx.getCurrentThreadCpuTime();
        for (long k = 0; k < n; k++) {
            Op op = new Op(delays[i & (delays.length - 1)]);
            p.tryCompleteElseWatch(op, keys[i % keys.length]);
            i++;
        }
        return mx.getCurrentThreadCpuTime() - c0;
    }
    @Override public void close() { p.close(); }
}
