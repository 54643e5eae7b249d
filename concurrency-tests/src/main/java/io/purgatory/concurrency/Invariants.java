package io.purgatory.concurrency;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * The arbiters' way to the library's own invariant checkers, which are package-private: these
 * tests live in packages of their own (the library's packages belong to its modules), so they
 * reach the checkers by reflection, on the class path where jcstress runs them. A broken
 * invariant is thrown as the checker threw it, which jcstress reports as an error.
 */
public final class Invariants {

    private static final ClassValue<Method> ENGINE = new ClassValue<>() {
        @Override
        protected Method computeValue(Class<?> type) {
            return accessible(type, "engine");
        }
    };
    private static final ClassValue<Method> CHECK = new ClassValue<>() {
        @Override
        protected Method computeValue(Class<?> type) {
            return accessible(type, "checkInvariants");
        }
    };

    private Invariants() {
    }

    /**
     * Checks the invariants of a purgatory facade (through its engine), or of a timer.
     *
     * @throws IllegalStateException (or what the checker threw) if one is broken
     */
    public static void check(Object purgatoryOrTimer) {
        Object target = purgatoryOrTimer;
        Method engine = ENGINE.get(target.getClass());
        if (engine != null) {
            target = invoke(engine, target);
        }
        Method check = CHECK.get(target.getClass());
        if (check == null) {
            throw new IllegalArgumentException("no invariant checker on " + target.getClass().getName());
        }
        invoke(check, target);
    }

    /** {@code type}'s method {@code name}, declared there or on a superclass (a facade's shared base). */
    private static Method accessible(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                Method method = c.getDeclaredMethod(name);
                method.setAccessible(true);
                return method;
            } catch (NoSuchMethodException absent) {
                // look on the superclass
            }
        }
        return null;
    }

    private static Object invoke(Method method, Object target) {
        try {
            return method.invoke(target);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
