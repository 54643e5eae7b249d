package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.timer.ManualTimer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 11, item 1: every public and protected method a user operation inherits, called on a
 * submitted operation (and on a settled one), leaves the library's state consistent. Only
 * forceComplete, cancel and run (the timer's expiry, which expires it once) settle it; nothing
 * else changes its state, and whatever was called, it is settled exactly once in the end.
 */
class InheritedMethodsTest {

    /** Methods that settle the operation, and how. */
    private static final Set<String> SETTLING = Set.of("forceComplete()", "cancel()", "run()");
    /** The user's own code: calling it runs the user's code and touches no library state. */
    private static final Set<String> USER_CALLBACKS = Set.of("tryComplete()", "onComplete()", "onExpiration()",
            "onCancel()");

    @Test
    void delayedOperation_inheritedMethods_areExactlyTheContract() {
        assertThat(inheritedMethods().stream().map(InheritedMethodsTest::signature).toList())
                .as("a new inherited method must be added to this test's expectations")
                .containsExactlyInAnyOrder("cancel()", "clone()", "delayMs()", "equals(Object)", "finalize()",
                        "forceComplete()", "getClass()", "hashCode()", "isCancelled()", "isCompleted()",
                        "notify()", "notifyAll()", "onCancel()", "onComplete()", "onExpiration()",
                        "outcome()", "run()", "toString()", "tryComplete()", "wait()", "wait(long)", "wait(long,int)");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("methods")
    void anyInheritedMethod_onASubmittedOperation_leavesItsStateConsistentAndItSettlesOnce(String name, Method method)
            throws Exception {
        ManualTimer timer = new ManualTimer();
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("inherited").timer(timer)
                .reaperEnabled(false).build();
        Subclass op = new Subclass();
        p.tryCompleteElseWatch(op, List.of("a", "b"));

        call(method, op);
        call(method, op); // twice: still nothing corrupted

        p.engine().checkInvariants();
        if (SETTLING.contains(name)) {
            assertThat(op.isCompleted()).isTrue();
            assertThat(p.numDelayed()).isZero();
            assertThat(p.watched()).isZero();
            assertThat(timer.size()).isZero();
        } else {
            assertThat(op.isCompleted()).as("%s must not settle it", name).isFalse();
            assertThat(p.numDelayed()).isEqualTo(1);
            assertThat(p.watched()).isEqualTo(2);
            op.completable = true;
            assertThat(p.checkAndComplete("b")).as("still watched on its keys").isEqualTo(1);
        }
        timer.advanceClock(1_000);
        p.close();

        PurgatoryStats stats = p.stats();
        assertThat(stats.completed() + stats.expired() + stats.cancelled()).as("settled once").isEqualTo(1);
        assertThat(p.numDelayed()).isZero();
        assertThat(timer.size()).isZero();
        p.engine().checkInvariants();
        if (!USER_CALLBACKS.contains(name)) {
            int settlements = op.completes.get() + op.cancels.get();
            assertThat(settlements).as("the callbacks of one settle, once").isEqualTo(1);
            assertThat(op.expirations.get()).isLessThanOrEqualTo(1);
        }
        timer.close();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("methods")
    void anyInheritedMethod_onASettledOperation_changesNothing(String name, Method method) throws Exception {
        ManualTimer timer = new ManualTimer();
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("inherited-settled")
                .timer(timer).reaperEnabled(false).build();
        Subclass op = new Subclass();
        p.tryCompleteElseWatch(op, List.of("a"));
        op.forceComplete();

        call(method, op);

        assertThat(op.outcome()).isEqualTo(Outcome.COMPLETED);
        assertThat(p.stats().completed()).isEqualTo(1);
        assertThat(p.stats().cancelled() + p.stats().expired()).isZero();
        if (!USER_CALLBACKS.contains(name)) {
            assertThat(op.callbackCounts()).isEqualTo("1,0,0");
        }
        p.engine().checkInvariants();
        p.close();
        timer.close();
    }

    static Stream<Object[]> methods() {
        return inheritedMethods().stream().map(m -> new Object[] {signature(m), m});
    }

    /** The public and protected methods of DelayedOperation and its superclasses, overridden ones once. */
    private static List<Method> inheritedMethods() {
        Set<String> seen = new TreeSet<>();
        List<Method> methods = new ArrayList<>();
        for (Class<?> c = DelayedOperation.class; c != null; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                int mod = m.getModifiers();
                if ((Modifier.isPublic(mod) || Modifier.isProtected(mod)) && !Modifier.isStatic(mod) && !m.isSynthetic()
                        && seen.add(signature(m))) {
                    methods.add(m);
                }
            }
        }
        return methods;
    }

    private static String signature(Method m) {
        StringBuilder sb = new StringBuilder(m.getName()).append('(');
        Class<?>[] params = m.getParameterTypes();
        for (int i = 0; i < params.length; i++) {
            sb.append(i == 0 ? "" : ",").append(params[i].getSimpleName());
        }
        return sb.append(')').toString();
    }

    /**
     * What a subclass may do with the operation's monitor (the library does not use it): wait and
     * notify while holding it; a plain wait() is woken by another thread.
     */
    private static void callHoldingTheMonitor(Method method, Subclass op, Object[] args)
            throws IllegalAccessException, InvocationTargetException {
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Thread waker = new Thread(() -> {
            while (!done.get()) {
                synchronized (op) {
                    op.notifyAll();
                }
                Thread.onSpinWait();
            }
        }, "waker");
        waker.setDaemon(true);
        waker.start();
        try {
            synchronized (op) {
                method.invoke(op, args);
            }
        } finally {
            done.set(true);
        }
    }

    /** Calls {@code method} on {@code op} as a caller or a subclass could; what it throws is ignored. */
    private static void call(Method method, Subclass op) throws IllegalAccessException {
        if (method.getDeclaringClass() != Object.class) {
            method.setAccessible(true);
        }
        Object[] args = switch (signature(method)) {
            case "equals(Object)" -> new Object[] {op};
            case "wait(long)" -> new Object[] {1L};
            case "wait(long,int)" -> new Object[] {1L, 1};
            default -> new Object[0];
        };
        try {
            if (method.getDeclaringClass() == Object.class && Modifier.isProtected(method.getModifiers())) {
                op.callObjectMethod(method.getName()); // clone, finalize: reachable from a subclass only
            } else if (method.getName().startsWith("wait") || method.getName().startsWith("notify")) {
                callHoldingTheMonitor(method, op, args);
            } else {
                method.invoke(op, args);
            }
        } catch (InvocationTargetException expected) {
            // clone() without Cloneable, a user callback that throws: the caller's problem, not the library's
        }
    }

    /** A user operation that calls Object's protected methods as any subclass can. */
    static final class Subclass extends HookOp {
        Subclass() {
            super(100);
        }

        @SuppressWarnings({"deprecation", "removal", "Finalize"})
        void callObjectMethod(String name) {
            try {
                if (name.equals("clone")) {
                    Object unused = super.clone();
                } else {
                    super.finalize();
                }
            } catch (Throwable expected) {
                // CloneNotSupportedException: the operation is not Cloneable
            }
        }
    }
}
