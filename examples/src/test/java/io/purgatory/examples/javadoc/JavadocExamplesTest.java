package io.purgatory.examples.javadoc;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.DelayedFuturePurgatory;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.Outcome;
import io.purgatory.Purgatory;
import io.purgatory.timer.ManualTimer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every code example of a published type's class comment (a {@code <pre>} block of code) is, but
 * for its indentation, a run of lines of a source file compiled with the tests (this package, or
 * examples-spring's javadoc package): an example a reader copies compiles against today's API. The
 * other tests here run those files and check that they do what their comments say.
 */
class JavadocExamplesTest {

    private static final List<Path> EXAMPLE_DIRS = List.of(
            PublishedModules.ROOT.resolve("examples/src/test/java/io/purgatory/examples/javadoc"),
            PublishedModules.ROOT.resolve("examples-spring/src/test/java/io/purgatory/examples/spring/javadoc"));
    /** Files of this package that hold no example. */
    private static final List<String> NOT_EXAMPLES = List.of("Orders.java", "PublishedModules.java",
            "JavadocExamplesTest.java", "PackageOverviewTest.java", "JavadocLinksTest.java",
            "JavadocLayoutBrowserTest.java");

    @Test
    void classComments_everyExample_isACompiledSourceOfTheExamples() throws IOException {
        Map<String, List<String>> examples = new LinkedHashMap<>();
        for (String module : PublishedModules.names()) {
            for (Path dir : PublishedModules.packages(module)) {
                PublishedModules.publicTypes(dir).forEach((type, source) -> {
                    List<List<String>> blocks = codeBlocks(PublishedModules.classComment(source), type);
                    for (int i = 0; i < blocks.size(); i++) {
                        examples.put(type + (blocks.size() > 1 ? " #" + (i + 1) : ""), blocks.get(i));
                    }
                });
            }
        }
        Map<Path, List<String>> files = new LinkedHashMap<>();
        for (Path dir : EXAMPLE_DIRS) {
            try (Stream<Path> list = Files.list(dir)) {
                for (Path file : list.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                    files.put(file, Files.readAllLines(file));
                }
            }
        }

        assertThat(examples).as("class-comment examples found").containsKeys("DelayedOperation",
                "DelayedOperationPurgatory", "KeyedWaits", "ManualTimer", "PurgatoryFactory");
        List<Path> used = new ArrayList<>();
        for (Map.Entry<String, List<String>> example : examples.entrySet()) {
            Path home = files.entrySet().stream().filter(f -> containsBlock(f.getValue(), example.getValue()))
                    .map(Map.Entry::getKey).findFirst().orElse(null);
            assertThat(home).as("no source file in %s holds the example of %s's class comment (copy it there, "
                    + "into code that compiles and runs, or copy that code back into the comment):%n%s",
                    EXAMPLE_DIRS, example.getKey(), String.join("\n", example.getValue())).isNotNull();
            used.add(home);
        }
        List<String> unused = files.keySet().stream().filter(f -> !used.contains(f))
                .map(f -> f.getFileName().toString()).filter(name -> !NOT_EXAMPLES.contains(name)).toList();
        assertThat(unused).as("example files whose example no class comment shows any more").isEmpty();
    }

    /** The code blocks of a class comment, each line without its " * " and the block's indentation. */
    private static List<List<String>> codeBlocks(String comment, String type) {
        List<List<String>> blocks = new ArrayList<>();
        List<String> block = null;
        for (String raw : comment.split("\n")) {
            String line = raw.replaceFirst("^\\s*/?\\*+ ?", "").stripTrailing();
            if (line.contains("<pre>{@code")) {
                assertThat(line.strip()).as("%s: a code block starts on a line of its own", type)
                        .isEqualTo("<pre>{@code");
                block = new ArrayList<>();
            } else if (block != null && line.contains("}</pre>")) {
                assertThat(line.strip()).as("%s: a code block ends on a line of its own", type).isEqualTo("}</pre>");
                blocks.add(deindent(block));
                block = null;
            } else if (block != null) {
                block.add(line);
            }
        }
        return blocks;
    }

    private static boolean containsBlock(List<String> fileLines, List<String> block) {
        for (int start = 0; start + block.size() <= fileLines.size(); start++) {
            List<String> window = fileLines.subList(start, start + block.size()).stream().map(String::stripTrailing)
                    .toList();
            if (deindent(window).equals(block)) {
                return true;
            }
        }
        return false;
    }

    private static List<String> deindent(List<String> lines) {
        int indent = lines.stream().filter(l -> !l.isBlank()).mapToInt(l -> l.length() - l.stripLeading().length())
                .min().orElse(0);
        return lines.stream().map(l -> l.isBlank() ? "" : l.substring(indent)).toList();
    }

    @Test
    void delayedOperationPurgatoryExample_orderPaid_answersThePayment() throws Exception {
        CompletableFuture<String> reply = new CompletableFuture<>();
        try (DelayedOperationPurgatory<DelayedPayment> payments =
                     DelayedOperationPurgatoryExample.run(new Orders(), "order-1", reply)) {
            assertThat(reply).as("answered by checkAndComplete, on this thread").isCompletedWithValue("paid");
            assertThat(payments.numDelayed()).isZero();
        }
    }

    @Test
    void delayedPayment_alreadyPaid_isAnsweredAtOnce_andUnpaid_afterItsDelay() {
        Orders orders = new Orders();
        orders.markPaid("paid-order");
        ManualTimer timer = new ManualTimer();
        try (DelayedOperationPurgatory<DelayedPayment> payments =
                     DelayedOperationPurgatory.builder("payments").timer(timer).build()) {
            CompletableFuture<String> paid = new CompletableFuture<>();
            CompletableFuture<String> unpaid = new CompletableFuture<>();

            assertThat(payments.tryCompleteElseWatch(new DelayedPayment(orders, "paid-order", paid),
                    List.of("paid-order"))).isTrue();
            payments.tryCompleteElseWatch(new DelayedPayment(orders, "unpaid-order", unpaid), List.of("unpaid-order"));
            assertThat(paid).isCompletedWithValue("paid");

            timer.advanceClock(Duration.ofSeconds(20).minusMillis(1));
            assertThat(unpaid).as("before its delay").isNotDone();
            timer.advanceClock(1);
            assertThat(unpaid).as("at its delay").isCompletedWithValue("not paid yet");
        }
    }

    @Test
    void keyedWaitsExample_paymentArrives_completesTheLongPollWithIt() {
        KeyedWaitsExample.Payment payment = new KeyedWaitsExample.Payment("order-1", 4_200);

        assertThat(KeyedWaitsExample.run(new KeyedWaitsExample.OrderId("order-1"), payment))
                .isCompletedWithValue(payment);
    }

    @Test
    void delayedConditionExample_orderPaid_completes() {
        assertThat(DelayedConditionExample.run(new Orders(), "order-1")).isCompletedWithValue(Outcome.COMPLETED);
    }

    @Test
    void purgatoryRuntimeExample_runtimeClosed_closesBothPurgatories() {
        List<Purgatory> purgatories = PurgatoryRuntimeExample.run();

        assertThat(purgatories).extracting(Purgatory::name).containsExactly("payments", "shipments");
        assertThat(purgatories).allMatch(Purgatory::isClosed);
    }

    @Test
    void delayedFuturePurgatoryExample_replicasAcknowledge_answersOnceBothHave() throws Exception {
        CompletableFuture<Long> replica1 = new CompletableFuture<>();
        CompletableFuture<Long> replica2 = new CompletableFuture<>();
        CompletableFuture<Boolean> reply = new CompletableFuture<>();
        try (DelayedFuturePurgatory acks = DelayedFuturePurgatoryExample.run(replica1, replica2, reply)) {
            replica1.complete(41L);
            assertThat(reply).as("one replica of two").isNotDone();
            replica2.complete(41L);

            // completed on the purgatory's DelayedExecutor thread: a generous bound, never reached
            assertThat(reply.get(30, TimeUnit.SECONDS)).isTrue();
            assertThat(acks.numDelayed()).isZero();
        }
    }
}
