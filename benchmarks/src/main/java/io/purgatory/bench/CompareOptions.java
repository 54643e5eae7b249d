package io.purgatory.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The options of {@code compare}: {@code [--quick] [--rounds N] [--only id,...] [--impls id,...]}
 * and the others of {@link #USAGE}.
 *
 * @param quick  the CI smoke size (one round unless --rounds is given)
 * @param rounds alternating rounds per workload; medians are taken over them
 * @param only   workload ids or id prefixes to run (empty: all)
 * @param impls  implementations to run (empty: all); for profiling one of them alone
 * @param rates  steps (inserts/s) of the expiry-capacity workload instead of its ladder (empty: its ladder),
 *               each run even after one fails: for profiling one rate, or a short ladder on a loaded machine
 * @param threads the thread counts of the scaling workload (empty: 1 and 2)
 * @param skip   workload ids or id prefixes not to run, even if {@code only} selects them
 * @param backgroundLoad busy threads in a child JVM for the whole run (0: none), see {@link BackgroundLoad}
 * @param backgroundOwnSession whether that JVM runs in a session of its own (as another engineer's build)
 */
public record CompareOptions(boolean quick, int rounds, Set<String> only, Set<Impl> impls, List<Integer> rates,
                             List<Integer> threads, Set<String> skip, int backgroundLoad,
                             boolean backgroundOwnSession) {

    static final String USAGE = "compare [--quick] [--rounds N]"
            + " [--only acks,expiration,memory,churn,perf,jmh,hotkey,keyed,cold,scaling,fanout,list,tenants]"
            + " [--impls ours,kafka,netty,jdk,floor,proto,timed_floor,alloc_floor]"
            + " [--rates R,... (expiration-capacity's ladder)]"
            + " [--threads N,... (scaling's thread counts)] [--skip id,...]"
            + " [--background-load N (busy threads beside the run)] [--background-own-session]";

    public CompareOptions {
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds must be >= 1: " + rounds);
        }
        only = Set.copyOf(only);
        impls = Set.copyOf(impls);
        rates = List.copyOf(rates);
        for (int rate : rates) {
            if (rate < 1) {
                throw new IllegalArgumentException("--rates must be >= 1: " + rate);
            }
        }
        threads = List.copyOf(threads);
        for (int n : threads) {
            if (n < 1) {
                throw new IllegalArgumentException("--threads must be >= 1: " + n);
            }
        }
        skip = Set.copyOf(skip);
        if (backgroundLoad < 0) {
            throw new IllegalArgumentException("--background-load must be >= 0: " + backgroundLoad);
        }
    }

    public static CompareOptions parse(String... args) {
        boolean quick = false;
        Integer rounds = null;
        Set<String> only = new TreeSet<>();
        Set<Impl> impls = new TreeSet<>();
        List<Integer> rates = new ArrayList<>();
        List<Integer> threads = new ArrayList<>();
        Set<String> skip = new TreeSet<>();
        int backgroundLoad = 0;
        boolean ownSession = false;
        List<String> list = Arrays.asList(args);
        for (int i = 0; i < list.size(); i++) {
            String a = list.get(i);
            switch (a) {
                case "--quick" -> quick = true;
                case "--rounds" -> rounds = Integer.parseInt(value(list, ++i, a));
                case "--only" -> only.addAll(Arrays.asList(value(list, ++i, a).split(",")));
                case "--impls" -> Arrays.stream(value(list, ++i, a).split(",")).map(Impl::of).forEach(impls::add);
                case "--rates" -> Arrays.stream(value(list, ++i, a).split(",")).map(Integer::valueOf)
                        .forEach(rates::add);
                case "--threads" -> Arrays.stream(value(list, ++i, a).split(",")).map(Integer::valueOf)
                        .forEach(threads::add);
                case "--skip" -> skip.addAll(Arrays.asList(value(list, ++i, a).split(",")));
                case "--background-load" -> backgroundLoad = Integer.parseInt(value(list, ++i, a));
                case "--background-own-session" -> ownSession = true;
                default -> throw new IllegalArgumentException("unknown option '" + a + "'; usage: " + USAGE);
            }
        }
        return new CompareOptions(quick, rounds != null ? rounds : quick ? 1 : 3, only, impls, rates, threads,
                skip, backgroundLoad, ownSession);
    }

    /**
     * True if {@code id} is selected: listed in {@code only} (or {@code only} empty) and not in {@code skip},
     * each entry naming an id or an id prefix ("perf" selects "perf-low").
     */
    boolean selects(String id) {
        return (only.isEmpty() || only.stream().anyMatch(o -> names(o, id)))
                && skip.stream().noneMatch(o -> names(o, id));
    }

    private static boolean names(String entry, String id) {
        return id.equals(entry) || id.startsWith(entry + "-");
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
