package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The README's two-instance demo: a real broker, two instances, a long poll answered across them. */
class TwoInstanceDemoTest {

    private static TwoInstanceDemo demo;
    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        demo = TwoInstanceDemo.start(2, 0, null);
    }

    @AfterAll
    static void stop() {
        demo.close();
    }

    @Test
    void aLongPollOnOneInstanceIsAnsweredByAPaymentPostedToTheOther() {
        PaymentInstance one = demo.instances().get(0);
        PaymentInstance two = demo.instances().get(1);
        CompletableFuture<HttpResponse<String>> poll = send("GET", one, "/orders/order-42/wait?timeoutMs=60000");
        Eventually.await("the long poll is parked", () -> feedBody(one).contains("\"partitions\":3"));

        HttpResponse<String> paid = send("POST", two, "/orders/order-42/paid?amountCents=1250").join();

        assertThat(paid.statusCode()).isEqualTo(202);
        assertThat(paid.body()).contains("\"publishedBy\":\"" + two.name() + "\"");
        HttpResponse<String> answer = poll.join();
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).contains("\"answeredBy\":\"" + one.name() + "\"", "\"orderId\":\"order-42\"",
                "\"amountCents\":1250", "\"receivedBy\":\"" + two.name() + "\"");
        assertThat(one.name()).isNotEqualTo(two.name());
    }

    @Test
    void aPaymentPostedBeforeTheLongPollStillAnswersIt() {
        PaymentInstance one = demo.instances().get(0);
        PaymentInstance two = demo.instances().get(1);
        assertThat(send("POST", one, "/orders/order-7/paid?amountCents=99").join().statusCode()).isEqualTo(202);
        Eventually.await("instance-2 has read it", () -> feedBody(two).contains("\"eventsNoWaiter\":")
                && !feedBody(two).contains("\"eventsNoWaiter\":0"));

        HttpResponse<String> answer = send("GET", two, "/orders/order-7/wait?timeoutMs=1").join();
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).contains("\"amountCents\":99");
    }

    @Test
    void badInputGets400Or404() {
        PaymentInstance one = demo.instances().get(0);
        assertThat(send("GET", one, "/orders/o/wait?timeoutMs=soon").join().statusCode()).isEqualTo(400);
        assertThat(send("GET", one, "/orders/o/elsewhere").join().statusCode()).isEqualTo(404);
        assertThat(send("DELETE", one, "/orders/o/paid").join().statusCode()).isEqualTo(405);
    }

    private String feedBody(PaymentInstance instance) {
        return send("GET", instance, "/feed").join().body();
    }

    private CompletableFuture<HttpResponse<String>> send(String method, PaymentInstance to, String path) {
        URI uri = URI.create("http://127.0.0.1:" + to.port() + path);
        return client.sendAsync(HttpRequest.newBuilder(uri).method(method, BodyPublishers.noBody()).build(),
                BodyHandlers.ofString()).orTimeout(90, TimeUnit.SECONDS);
    }
}
