package io.purgatory.testbroker;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The child JVM's main class, started by {@link KafkaBroker}: formats the storage on the first
 * start, then runs Kafka's own {@code kafka.Kafka} main on the properties file. Its standard input
 * is a pipe from the parent; when the parent goes away (the pipe closes), the broker shuts down
 * as on SIGTERM, so no broker outlives the test or demo that started it.
 *
 * <p>Arguments: {@code <server.properties> <cluster id> <log dir>}.
 */
public final class BrokerMain {

    private BrokerMain() {
    }

    /** Formats the log dir if it has no {@code meta.properties}, watches the parent, runs the broker. */
    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: BrokerMain <server.properties> <cluster id> <log dir>");
        }
        String properties = args[0];
        Path logDir = Path.of(args[2]);
        if (!Files.exists(logDir.resolve("meta.properties"))) {
            PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
            int formatted = kafka.tools.StorageTool.execute(new String[] {"format", "-t", args[1], "-c", properties},
                    out);
            if (formatted != 0) {
                System.exit(formatted);
            }
        }
        Thread watch = new Thread(BrokerMain::exitWhenTheParentGoes, "parent-watch");
        watch.setDaemon(true);
        watch.start();
        kafka.Kafka.main(new String[] {properties});
    }

    /** Blocks on standard input until it closes, then exits, which runs Kafka's shutdown hook. */
    private static void exitWhenTheParentGoes() {
        try (InputStream in = System.in) {
            while (in.read() >= 0) {
                // the parent writes nothing; only the end of the stream counts
            }
        } catch (IOException parentGone) {
            // same as the end of the stream
        }
        System.exit(0);
    }
}
