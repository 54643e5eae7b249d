package io.purgatory.spring;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A real HTTP client of an application on a loopback port. */
final class Http {

    private final HttpClient client = HttpClient.newHttpClient();
    private final int port;

    Http(int port) {
        this.port = port;
    }

    /** GET {@code path}; fails after 30 s: a hang fails, not a slow answer. */
    CompletableFuture<HttpResponse<String>> get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).GET().build());
    }

    /** POST {@code json} to {@code path}. */
    CompletableFuture<HttpResponse<String>> post(String path, String json) {
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .POST(BodyPublishers.ofString(json)).build());
    }

    /**
     * Sends GET {@code path} on a socket of its own and returns it, open: the test closes it, as a
     * client that goes away before the answer.
     */
    Socket getAndHold(String path) throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
        OutputStream out = socket.getOutputStream();
        out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return socket;
    }

    private CompletableFuture<HttpResponse<String>> send(HttpRequest request) {
        return client.sendAsync(request, BodyHandlers.ofString()).orTimeout(30, TimeUnit.SECONDS);
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }
}
