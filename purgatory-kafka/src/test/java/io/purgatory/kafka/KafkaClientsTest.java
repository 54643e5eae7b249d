package io.purgatory.kafka;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.argThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;

import ch.qos.logback.classic.Level;
import io.purgatory.KeyedWaits;
import io.purgatory.testsupport.Eventually;
import io.purgatory.testsupport.LogCapture;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The feed on every kafka-clients from 3.9 on (KafkaClients F9): on the version it is built with,
 * the consumer closes with CloseOptions, and no class but the one made for it names that 4.1 type,
 * so the feed loads on 3.9 (purgatory-kafka-compat-tests runs it there, on a real broker). And a
 * consumer whose close throws leaves no admin client open.
 */
class KafkaClientsTest {

    private static final String CLOSE_OPTIONS = CloseOptions.class.getName().replace('.', '/');

    @Test
    @SuppressWarnings("deprecation") // verifies that the deprecated close(Duration) is not called
    void closeNow_onTheClientsItIsBuiltWith_closesWithCloseOptionsWithoutWaiting() {
        Consumer<byte[], byte[]> consumer = mock();

        KafkaClients.closeNow(consumer);

        verify(consumer).close(argThat((CloseOptions options) -> options.timeout().equals(Optional.of(Duration.ZERO))));
        verify(consumer, never()).close(any(Duration.class));
        verify(consumer, never()).close();
    }

    @Test
    void classFiles_onlyTheOneMadeForKafkaClients41_nameCloseOptions() throws IOException, URISyntaxException {
        Path classes = Path.of(KafkaFeed.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> naming;
        try (Stream<Path> files = Files.walk(classes)) {
            naming = files.filter(file -> file.toString().endsWith(".class"))
                    .filter(KafkaClientsTest::namesCloseOptions).map(file -> classes.relativize(file).toString())
                    .toList();
        }
        assertThat(naming).as("the check can fail: the 4.1 call names it")
                .containsExactly("io/purgatory/kafka/KafkaClients$Since41.class");
    }

    @Test
    void close_consumerCloseThrowsAnError_theAdminClientIsClosedRegardless() {
        FakeBroker broker = new FakeBroker("t", 1);
        KeyedWaits<String, String> waits = KeyedWaits.builder("closing").build();
        try (LogCapture log = new LogCapture(KafkaFeed.class)) {
            KafkaFeed<String, String> feed = broker.feed(waits).closeWaits(true).build().start();
            Eventually.await("ready", feed::isReady);
            broker.failClose(new NoClassDefFoundError("a class the consumer's interceptor needs"));

            feed.close();

            assertThat(broker.closed()).isTrue();
            assertThat(broker.adminClosed()).isTrue();
            assertThat(waits.isClosed()).isTrue();
            assertThat(log.events()).singleElement().satisfies(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.WARN);
                assertThat(e.getFormattedMessage()).contains("closing the consumer failed");
                assertThat(e.getThrowableProxy().getClassName()).isEqualTo(NoClassDefFoundError.class.getName());
            });
        }
    }

    private static boolean namesCloseOptions(Path classFile) {
        try {
            return new String(Files.readAllBytes(classFile), ISO_8859_1).contains(CLOSE_OPTIONS);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
