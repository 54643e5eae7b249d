package io.purgatory.examples;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line of a demo's main: {@code --option value} pairs, and {@code --help} (or
 * {@code -h}). An unknown option, an option without its value or a value out of range is an
 * IllegalArgumentException whose message names the option and the value (an unknown option's also
 * lists the known ones); the mains print it with their usage and exit with status 2.
 */
final class CommandLine {

    private final Map<String, String> values;
    private final boolean help;

    private CommandLine(Map<String, String> values, boolean help) {
        this.values = values;
        this.help = help;
    }

    /** Reads {@code args}, each option one of {@code options} followed by its value. */
    static CommandLine parse(String[] args, List<String> options) {
        Map<String, String> values = new HashMap<>();
        boolean help = false;
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (name.equals("--help") || name.equals("-h")) {
                help = true;
            } else if (!options.contains(name)) {
                throw new IllegalArgumentException("unknown option " + name + "; the options are "
                        + String.join(", ", options) + " and --help");
            } else if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + name + " needs a value");
            } else {
                values.put(name, args[++i]);
            }
        }
        return new CommandLine(values, help);
    }

    boolean help() {
        return help;
    }

    /** The value of {@code option}, or {@code dflt} when it was not given. */
    String value(String option, String dflt) {
        return values.getOrDefault(option, dflt);
    }

    /** The value of {@code option} as a whole number from {@code min} to {@code max}, or {@code dflt}. */
    int intValue(String option, int dflt, int min, int max) {
        String raw = values.get(option);
        if (raw == null) {
            return dflt;
        }
        int v;
        try {
            v = Integer.parseInt(raw);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be a whole number: '" + raw + "'");
        }
        if (v < min || v > max) {
            throw new IllegalArgumentException(option + " must be from " + min + " to " + max + ": " + v);
        }
        return v;
    }
}
