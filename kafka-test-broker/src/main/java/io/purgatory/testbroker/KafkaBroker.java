package io.purgatory.testbroker;

import java.io.IOException;
import java.io.File;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * A single-node KRaft Kafka broker (broker and controller in one process) in a child JVM, on a
 * free loopback port, with its storage formatted in a temporary directory. {@link #stop()} and
 * {@link #start()} restart the same broker, a real process restart on the same port and data;
 * {@link #close()} stops it and deletes the directory. Thread-safe (every method is synchronized).
 *
 * <p>The child runs Kafka from Maven Central's artifacts: its class path is the one this module
 * resolved at build time ({@code broker-classpath.txt}), so nothing is downloaded at run time.
 * The broker's log (WARN and above, and anything it prints) is {@link #logFile()}.
 */
public final class KafkaBroker implements AutoCloseable {

    private static final String CLASSPATH_RESOURCE = "broker-classpath.txt";

    private final List<String> jvmOptions;
    private final Duration startTimeout;
    private final int requestedPort;
    private final Map<String, String> overrides;
    private final Path dir;
    private final String clusterId = Uuid.randomUuid().toString();
    private int port;
    private int controllerPort;
    private Process process;
    private Thread shutdownHook;
    private boolean closed;

    private KafkaBroker(Builder b) throws IOException {
        this.jvmOptions = List.copyOf(b.jvmOptions);
        this.startTimeout = b.startTimeout;
        this.requestedPort = b.port;
        this.overrides = Map.copyOf(b.overrides);
        this.dir = Files.createTempDirectory("kafka-test-broker-");
    }

    /** A builder of a broker with the default JVM options (a quick start) and a 90 s start timeout. */
    public static Builder builder() {
        return new Builder();
    }

    /** The bootstrap servers: {@code 127.0.0.1:<port>}, the same across restarts. */
    public synchronized String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** The broker's log: its WARN and ERROR lines and anything it printed, across restarts. */
    public Path logFile() {
        return dir.resolve("broker.log");
    }

    /** True while the child process runs. */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /**
     * Starts the broker (again, after {@link #stop()}) and waits until it can host a topic: its
     * listener takes connections and a topic's creation validates.
     *
     * @throws IllegalStateException if it runs already, is closed, or did not become ready in time
     *         (the message ends with the tail of the log)
     */
    public synchronized void start() {
        if (closed) {
            throw new IllegalStateException("the broker is closed");
        }
        if (isRunning()) {
            throw new IllegalStateException("the broker runs already on " + bootstrapServers());
        }
        try {
            if (port == 0) {
                port = requestedPort != 0 ? checkFree(requestedPort) : freePort();
                controllerPort = freePort();
                writeConfig();
            }
            launch();
            awaitReady();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the broker started", e);
        }
    }

    /** Stops the broker as SIGTERM does (a controlled shutdown) and waits until its process ended. */
    public synchronized void stop() {
        end(false);
    }

    /** Kills the broker (SIGKILL): no controlled shutdown, its next start recovers the logs. */
    public synchronized void kill() {
        end(true);
    }

    /**
     * Creates {@code topic} with {@code partitions} partitions (replication 1), or does nothing if
     * it exists.
     */
    public void createTopic(String topic, int partitions) {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("could not create topic " + topic, e.getCause());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + topic, e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("topic " + topic + " not created within 30 s", e);
        }
    }

    /** An admin client of this broker; the caller closes it. */
    public Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000));
    }

    /** Stops the broker if it runs and deletes its directory. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        end(false);
        closed = true;
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void writeConfig() throws IOException {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("process.roles", "broker,controller");
        config.put("node.id", "1");
        config.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        config.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        config.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        config.put("controller.listener.names", "CONTROLLER");
        config.put("inter.broker.listener.name", "PLAINTEXT");
        config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        config.put("log.dirs", dir.resolve("data").toString());
        config.put("auto.create.topics.enable", "false");
        config.put("offsets.topic.replication.factor", "1");
        config.put("transaction.state.log.replication.factor", "1");
        config.put("transaction.state.log.min.isr", "1");
        config.put("share.coordinator.state.topic.replication.factor", "1");
        config.put("share.coordinator.state.topic.min.isr", "1");
        config.put("group.initial.rebalance.delay.ms", "0");
        config.putAll(overrides);
        Properties properties = new Properties();
        properties.putAll(config);
        try (var out = Files.newBufferedWriter(dir.resolve("server.properties"))) {
            properties.store(out, "single-node KRaft test broker");
        }
        Files.writeString(dir.resolve("log4j2.properties"), """
                appender.out.type = Console
                appender.out.name = out
                appender.out.layout.type = PatternLayout
                appender.out.layout.pattern = %d{HH:mm:ss.SSS} %-5p [%t] %c - %m%n
                rootLogger.level = WARN
                rootLogger.appenderRef.out.ref = out
                """);
    }

    private void launch() throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-Dlog4j2.configurationFile=" + dir.resolve("log4j2.properties"));
        command.add("-cp");
        command.add(ownLocation() + File.pathSeparator + brokerClasspath());
        command.add(BrokerMain.class.getName());
        command.add(dir.resolve("server.properties").toString());
        command.add(clusterId);
        command.add(dir.resolve("data").toString());
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile())).start();
        Process started = process;
        shutdownHook = new Thread(started::destroy, "kafka-test-broker-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    private void awaitReady() throws InterruptedException {
        long deadline = System.nanoTime() + startTimeout.toNanos();
        while (!accepts(port)) {
            checkAlive(deadline);
            Thread.sleep(100);
        }
        try (Admin admin = admin()) {
            NewTopic probe = new NewTopic("ready-probe", 1, (short) 1);
            while (true) {
                checkAlive(deadline);
                try {
                    admin.createTopics(List.of(probe), new CreateTopicsOptions().validateOnly(true)).all()
                            .get(5, TimeUnit.SECONDS);
                    return;
                } catch (ExecutionException | TimeoutException notYet) {
                    Thread.sleep(200); // fenced, or the controller not elected yet
                }
            }
        }
    }

    private void checkAlive(long deadline) {
        if (!process.isAlive()) {
            throw new IllegalStateException("the broker exited with " + process.exitValue() + ":\n" + logTail());
        }
        if (System.nanoTime() - deadline > 0) {
            end(true);
            throw new IllegalStateException("the broker was not ready within " + startTimeout + ":\n" + logTail());
        }
    }

    private void end(boolean kill) {
        if (process == null) {
            return;
        }
        if (kill) {
            process.destroyForcibly();
        } else {
            process.destroy();
        }
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        closeQuietly(process.getOutputStream());
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs or ran already
        }
        process = null;
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(logFile(), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return true;
        } catch (IOException notYet) {
            return false;
        }
    }

    private static int checkFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("port " + port + " on 127.0.0.1 is in use (another broker?)", e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static String ownLocation() {
        try {
            return Path.of(KafkaBroker.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String brokerClasspath() throws IOException {
        try (InputStream in = KafkaBroker.class.getResourceAsStream(CLASSPATH_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(CLASSPATH_RESOURCE + " is missing: build kafka-test-broker with Maven");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        }
    }

    private static void closeQuietly(OutputStream stream) {
        try {
            stream.close();
        } catch (IOException ignored) {
            // the process is gone
        }
    }

    /** Builds a {@link KafkaBroker}. Not thread-safe. */
    public static final class Builder {
        private final List<String> jvmOptions = new ArrayList<>(
                List.of("-Xms128m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto"));
        private Duration startTimeout = Duration.ofSeconds(90);
        private final Map<String, String> overrides = new LinkedHashMap<>();
        private int port;

        private Builder() {
        }

        /**
         * The child JVM's options, instead of the defaults (a quick start: C1 only, serial GC,
         * 512 MB heap). A benchmark passes options without {@code -XX:TieredStopAtLevel=1}.
         */
        public Builder jvmOptions(List<String> options) {
            jvmOptions.clear();
            jvmOptions.addAll(options);
            return this;
        }

        /** How long {@link KafkaBroker#start()} waits for the broker to take requests (default 90 s). */
        public Builder startTimeout(Duration timeout) {
            this.startTimeout = timeout;
            return this;
        }

        /**
         * The port of the broker's listener on 127.0.0.1 (default: a free port). The start fails
         * if another process holds it.
         *
         * @throws IllegalArgumentException if {@code listenerPort} is not 1 to 65535
         */
        public Builder port(int listenerPort) {
            if (listenerPort < 1 || listenerPort > 65_535) {
                throw new IllegalArgumentException("port must be 1 to 65535: " + listenerPort);
            }
            this.port = listenerPort;
            return this;
        }

        /** A broker setting of {@code server.properties}, over the defaults. */
        public Builder brokerProperty(String key, String value) {
            overrides.put(key, value);
            return this;
        }

        /** Creates the broker's directory and starts it; waits until it can host a topic. */
        public KafkaBroker start() {
            try {
                KafkaBroker broker = new KafkaBroker(this);
                try {
                    broker.start();
                } catch (RuntimeException e) {
                    broker.close();
                    throw e;
                }
                return broker;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
