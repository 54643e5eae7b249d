import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.*;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongUnaryOperator;

/**
 * Runs one harness (a class H in a directory: insert/ or acks/) against several purgatory jars in one
 * JVM, on one thread, in alternating batches, and prints each jar's CPU time per call of the harness.
 * Usage (from benchmarks/same-jvm, after building the jars to compare):
 * <pre>
 * javac -cp OLD.jar -d insert/classes insert/H.java &amp;&amp; javac -d classes AB.java
 * java -Xms2g -Xmx2g -cp classes AB insert/classes 200000 8 15 100 old=OLD.jar new=NEW.jar
 * </pre>
 * Arguments: the harness's class directory, calls per second in all, warm-up s, measured s, batch,
 * then name=jar for each jar.
 */
public final class AB {
    public static void main(String[] a) throws Exception {
        File harness = new File(a[0]);
        int rate = Integer.parseInt(a[1]); int warm = Integer.parseInt(a[2]); int meas = Integer.parseInt(a[3]);
        int batch = Integer.parseInt(a[4]);
        List<String> names = new ArrayList<>(); List<LongUnaryOperator> hs = new ArrayList<>();
        for (int k = 5; k < a.length; k++) {
            String[] nv = a[k].split("=");
            URLClassLoader l = new URLClassLoader(new URL[] {new File(nv[1]).toURI().toURL(),
                    harness.toURI().toURL()}, ClassLoader.getPlatformClassLoader());
            names.add(nv[0]); hs.add((LongUnaryOperator) l.loadClass("H").getConstructor().newInstance());
        }
        int m = hs.size();
        long periodNs = (long) batch * m * 1_000_000_000L / rate;
        long[] cpu = new long[m]; long[] ops = new long[m];
        long t0 = System.nanoTime(); long startMeas = t0 + warm * 1_000_000_000L; long end = startMeas + meas * 1_000_000_000L;
        long next = t0; int rot = 0; long secCpu[] = new long[m]; long secOps[] = new long[m]; long nextPrint = startMeas + 10_000_000_000L;
        while (true) {
            long now = System.nanoTime();
            if (now - end >= 0) break;
            if (now - next < 0) { LockSupport.parkNanos(next - now); continue; }
            next += periodNs;
            boolean measuring = now - startMeas >= 0;
            for (int j = 0; j < m; j++) {
                int x = (j + rot) % m;
                long c = hs.get(x).applyAsLong(batch);
                if (measuring) { cpu[x] += c; ops[x] += batch; secCpu[x] += c; secOps[x] += batch; }
            }
            rot++;
            if (measuring && now - nextPrint >= 0) {
                StringBuilder sb = new StringBuilder("10s:");
                for (int x = 0; x < m; x++) { sb.append(String.format(" %s %.1f", names.get(x), (double) secCpu[x] / secOps[x])); secCpu[x] = 0; secOps[x] = 0; }
                System.out.println(sb); nextPrint += 10_000_000_000L;
            }
        }
        StringBuilder sb = new StringBuilder("total CPU ns per call:");
        for (int x = 0; x < m; x++) sb.append(String.format(" %s %.1f (%d ops, %d completed)", names.get(x), (double) cpu[x] / ops[x], ops[x], hs.get(x).applyAsLong(-1)));
        System.out.println(sb);
        for (LongUnaryOperator h : hs) ((AutoCloseable) h).close();
        System.exit(0);
    }
}
