package io.purgatory.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.kafka.tryit.TryTheFeed;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The "Try it" of docs/kafka-feed.md: its program is the file it names, character for character,
 * and that program, run against a real broker with the topic the docs' broker command creates,
 * prints the answered wait.
 */
@ExtendWith(SharedBroker.class)
class TryItDocTest {

    private static final Path ROOT = Path.of("..");
    private static final String PROGRAM = "purgatory-kafka/src/test/java/io/purgatory/kafka/tryit/TryTheFeed.java";

    @Test
    void kafkaFeedDoc_programAndCommands_areTheFileAndThoseOfThePoms() throws IOException {
        String docs = Files.readString(ROOT.resolve("docs/kafka-feed.md"));
        Matcher block = Pattern.compile("<!-- file: " + Pattern.quote(PROGRAM) + " -->\n```java\n(.*?)```\n",
                Pattern.DOTALL).matcher(docs);
        assertThat(block.find()).as("a java block after <!-- file: %s -->", PROGRAM).isTrue();
        assertThat(block.group(1)).isEqualTo(Files.readString(ROOT.resolve(PROGRAM)));
        assertThat(docs).contains("mvn -q -Pbroker -pl kafka-test-broker -am compile exec:java"
                + " -Dexec.args=\"--topic payments:3\"");
        assertThat(docs).contains("mvn -q -Ptry-feed -pl purgatory-kafka -am test-compile exec:java");
        assertThat(Files.readString(ROOT.resolve("kafka-test-broker/pom.xml")))
                .contains("<id>broker</id>", "<exec.mainClass>io.purgatory.testbroker.LocalBroker</exec.mainClass>");
        assertThat(Files.readString(ROOT.resolve("purgatory-kafka/pom.xml")))
                .contains("<id>try-feed</id>", "<exec.mainClass>io.purgatory.kafka.tryit.TryTheFeed</exec.mainClass>");
    }

    @Test
    void tryTheFeed_realBroker_answersItsWait() throws Exception {
        SharedBroker.broker().createTopic("payments", 3);
        PrintStream out = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            TryTheFeed.main(new String[] {SharedBroker.broker().bootstrapServers()});
        } finally {
            System.setOut(out);
        }
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("order-42 paid: 12.50 EUR (feed READY)");
    }
}
