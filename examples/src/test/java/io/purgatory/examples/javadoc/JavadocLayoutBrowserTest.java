package io.purgatory.examples.javadoc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The generated javadoc in a real headless Chromium (Debian's; .ci/run installs it): every class
 * page and package summary of every module that publishes javadoc, at 1400 and 1280 px wide, has
 * nothing that scrolls sideways: neither the page nor a box of it (javadoc's content pane, a
 * summary table's cell). The pages are served from the modules' apidocs directories by a loopback
 * server that also serves javadoc-layout-check.html, which loads each page in a frame of each width
 * and posts what it found. Waits for that post in real time, up to 120 s (on a loaded machine).
 * Outside CI the test is skipped when no Chromium is installed or no javadoc was generated; in CI
 * (CI=true) it fails.
 */
class JavadocLayoutBrowserTest {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Pattern LINE = Pattern.compile("width=(\\d+) page=(\\S+) problems=(.*)");
    /** Pages the check page loads at a time, each in its own pair of frames (900 px high each). */
    private static final int LANES = 4;
    private static final Map<String, String> TYPES = Map.of("html", "text/html; charset=utf-8",
            "css", "text/css", "js", "text/javascript", "svg", "image/svg+xml", "png", "image/png");

    @Test
    void javadocPages_atCommonWidths_haveNothingThatScrollsSideways() throws Exception {
        if (!"true".equalsIgnoreCase(System.getenv("CI"))) {
            assumeTrue(Files.isExecutable(CHROMIUM), "Chromium not installed (apt-get install chromium)");
        }
        PublishedModules.assumeJavadocGenerated();
        List<String> modules = PublishedModules.names().stream()
                .filter(m -> Files.isDirectory(PublishedModules.apidocs(m))).toList();
        List<String> pages = new ArrayList<>();
        for (String module : modules) {
            pages.addAll(mainPages(module));
        }
        assertThat(pages).as("pages to check").anyMatch(p -> p.endsWith("/DelayedOperationPurgatory.html"))
                .anyMatch(p -> p.endsWith("/ManualTimer.html")).anyMatch(p -> p.endsWith("/MicrometerMetrics.html"));

        CompletableFuture<String> result = new CompletableFuture<>();
        AtomicReference<String> progress = new AtomicReference<>("no page yet");
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        String pageList = pages.stream().map(p -> "\"" + p + "\"").collect(Collectors.joining(",", "[", "]"));
        byte[] checkPage = new String(resource("javadoc-layout-check.html"), StandardCharsets.UTF_8)
                .replace("/*PAGES*/[]", pageList).replace("/*LANES*/1", String.valueOf(LANES))
                .getBytes(StandardCharsets.UTF_8);
        server.createContext("/check", exchange -> send(exchange, 200, "html", checkPage));
        server.createContext("/result", exchange -> result.complete(readBody(exchange)));
        server.createContext("/progress", exchange -> progress.set(readBody(exchange)));
        for (String module : modules) {
            Path root = PublishedModules.apidocs(module).toAbsolutePath().normalize();
            server.createContext("/" + module + "/", exchange -> serveFile(exchange, root, module));
        }
        server.start();
        Path profile = Files.createTempDirectory("chromium-profile");
        Process browser = null;
        String report;
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/check";
            browser = new ProcessBuilder(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", "--disable-dev-shm-usage", "--user-data-dir=" + profile,
                    "--window-size=1600," + (LANES * 2 * 900 + 100), url)) // every frame on screen
                    .redirectErrorStream(true).redirectOutput(Redirect.DISCARD).start();
            report = result.get(120, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("the check page posted no result in 120 s; it was at: " + progress.get(), e);
        } finally {
            if (browser != null) {
                browser.descendants().forEach(ProcessHandle::destroyForcibly);
                browser.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
            server.stop(0);
            deleteTree(profile);
        }

        List<String> overflowing = new ArrayList<>();
        int checked = 0;
        Matcher line = LINE.matcher(report);
        while (line.find()) {
            checked++;
            if (!line.group(3).equals("none")) {
                overflowing.add(line.group(1) + " px " + line.group(2) + ": " + line.group(3));
            }
        }
        assertThat(checked).as("pages checked at two widths; the check page's report:%n%s", report)
                .isEqualTo(2 * pages.size());
        assertThat(overflowing).as("pages with something that scrolls sideways").isEmpty();
    }

    /** The module's class pages and package summaries, as paths on the test's server. */
    private static List<String> mainPages(String module) throws IOException {
        Path apidocs = PublishedModules.apidocs(module);
        try (Stream<Path> files = Files.walk(apidocs)) {
            return files.filter(f -> {
                String name = f.getFileName().toString();
                String path = apidocs.relativize(f).toString();
                return name.endsWith(".html") && !path.contains("class-use") && !path.startsWith("src")
                        && (Character.isUpperCase(name.charAt(0)) || name.equals("package-summary.html"));
            }).map(f -> "/" + module + "/" + apidocs.relativize(f).toString().replace('\\', '/')).sorted().toList();
        }
    }

    private static void serveFile(HttpExchange exchange, Path root, String module) throws IOException {
        String path = exchange.getRequestURI().getPath().substring(module.length() + 2);
        Path file = root.resolve(path).normalize();
        if (!file.startsWith(root) || !Files.isRegularFile(file)) {
            send(exchange, 404, "html", "not found".getBytes(StandardCharsets.UTF_8));
            return;
        }
        String name = file.getFileName().toString();
        // the javadoc's scripts, style sheets and search indexes are fetched once, not once per page and frame
        exchange.getResponseHeaders().set("Cache-Control", "max-age=3600");
        send(exchange, 200, name.substring(name.lastIndexOf('.') + 1), Files.readAllBytes(file));
    }

    private static void send(HttpExchange exchange, int status, String extension, byte[] body) throws IOException {
        try (exchange) {
            String type = TYPES.getOrDefault(extension, "application/octet-stream");
            exchange.getResponseHeaders().set("Content-Type", type);
            exchange.sendResponseHeaders(status, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private static String readBody(HttpExchange exchange) throws IOException {
        try (exchange) {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(204, -1);
            return body;
        }
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = JavadocLayoutBrowserTest.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException(name + " missing from the test class path");
            }
            return in.readAllBytes();
        }
    }

    /** Best effort: a helper process chromium left behind may still write there. */
    private static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException | UncheckedIOException leftBehind) {
            // a temporary directory; the system's cleanup takes it
        }
    }
}
