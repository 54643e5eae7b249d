package io.purgatory.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The options of {@code compare}: {@code [--quick] [--rounds N] [--only id,...] [--impls id,...]}.
 *
 * @param quick  the CI smoke size (one round unless --rounds is given)
 * @param rounds alternating rounds per workload; medians are taken over them
 * @param only   workload ids or id prefixes to run (empty: all)
 * @param impls  implementations to run (empty: all); for profiling one of them alone
 */
public record CompareOptions(boolean quick, int rounds, Set<String> only, Set<Impl> impls) {

    static final String USAGE = "compare [--quick] [--rounds N]"
            + " [--only acks,expiration,memory,churn,perf,jmh,hotkey,keyed,cold]"
            + " [--impls ours,kafka,netty,jdk,floor,proto]";

    public CompareOptions {
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds must be >= 1: " + rounds);
        }
        only = Set.copyOf(only);
        impls = Set.copyOf(impls);
    }

    public static CompareOptions parse(String... args) {
        boolean quick = false;
        Integer rounds = null;
        Set<String> only = new TreeSet<>();
        Set<Impl> impls = new TreeSet<>();
        List<String> list = Arrays.asList(args);
        for (int i = 0; i < list.size(); i++) {
            String a = list.get(i);
            switch (a) {
                case "--quick" -> quick = true;
                case "--rounds" -> rounds = Integer.parseInt(value(list, ++i, a));
                case "--only" -> only.addAll(Arrays.asList(value(list, ++i, a).split(",")));
                case "--impls" -> Arrays.stream(value(list, ++i, a).split(",")).map(Impl::of).forEach(impls::add);
                default -> throw new IllegalArgumentException("unknown option '" + a + "'; usage: " + USAGE);
            }
        }
        return new CompareOptions(quick, rounds != null ? rounds : quick ? 1 : 3, only, impls);
    }

    /** True if {@code id} is selected: listed, or listed as a prefix ("perf" selects "perf-low"). */
    boolean selects(String id) {
        return only.isEmpty() || only.stream().anyMatch(o -> id.equals(o) || id.startsWith(o + "-"));
    }

    /** True if {@code impl} is to be run. */
    boolean runs(Impl impl) {
        return impls.isEmpty() || impls.contains(impl);
    }

    private static String value(List<String> args, int i, String option) {
        if (i >= args.size()) {
            throw new IllegalArgumentException(option + " needs a value; usage: " + USAGE);
        }
        return args.get(i);
    }
}
