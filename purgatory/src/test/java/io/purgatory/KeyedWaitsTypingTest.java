package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.Timer;
import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a user's code compiles to: typed keys catch an Integer/Long mix-up at compile time, and the
 * common builders need no type witness. Compiles small sources against the library with javac.
 */
class KeyedWaitsTypingTest {

    @TempDir
    Path dir;

    @Test
    void keyedWaits_commonFormsWithoutATypeWitness_compile() throws Exception {
        List<String> errors = compile("""
                import io.purgatory.KeyedWaits;
                import java.time.Duration;
                import java.util.List;
                import java.util.concurrent.CompletableFuture;
                class User {
                    void use() {
                        KeyedWaits<Integer, String> waits = KeyedWaits.builder("orders")
                                .retainEvents(Duration.ofSeconds(30), 1_000).maxPending(10).build();
                        CompletableFuture<String> a = waits.await(42, Duration.ofSeconds(1));
                        CompletableFuture<String> b = waits.await(42, Duration.ofSeconds(1), v -> v.isEmpty());
                        CompletableFuture<String> c = waits.awaitAny(List.of(1, 2), Duration.ofSeconds(1), v -> true);
                        CompletableFuture<String> d = waits.on(42).until(v -> true).orElse("none")
                                .await(Duration.ofSeconds(1));
                        int answered = waits.complete(42, "paid");
                    }
                }
                """);
        assertThat(errors).isEmpty();
    }

    @Test
    void build_assignedWithVarAndNoTypes_theFirstAwaitOrCompleteDoesNotCompile() throws Exception {
        List<String> errors = compile("""
                import io.purgatory.KeyedWaits;
                import java.time.Duration;
                class User {
                    void use() {
                        var waits = KeyedWaits.builder("orders").build();
                        waits.await(42, Duration.ofSeconds(1));
                        waits.complete("42", "paid");
                    }
                }
                """);
        assertThat(errors).as("an Integer key in one place and a String in another must not both compile")
                .hasSize(2);
    }

    @Test
    void build_typedByAParameterOrAReturnType_compilesWithoutAWitness() throws Exception {
        List<String> errors = compile("""
                import io.purgatory.KeyedWaits;
                class User {
                    KeyedWaits<String, Long> make() {
                        return KeyedWaits.builder("returned").build();
                    }

                    void take(KeyedWaits<Integer, String> waits) {
                    }

                    void use() {
                        take(KeyedWaits.builder("argument").build());
                        KeyedWaits<?, ?> any = KeyedWaits.builder("wildcard").build();
                    }
                }
                """);
        assertThat(errors).isEmpty();
    }

    @Test
    void complete_longKeyForIntegerKeys_doesNotCompile() throws Exception {
        List<String> errors = compile("""
                import io.purgatory.KeyedWaits;
                class User {
                    void use(KeyedWaits<Integer, String> waits) {
                        waits.complete(42L, "paid");
                    }
                }
                """);
        assertThat(errors).singleElement().asString().contains("long cannot be converted to java.lang.Integer");
    }

    @Test
    void await_futureOfTheWrongValueType_doesNotCompile() throws Exception {
        List<String> errors = compile("""
                import io.purgatory.KeyedWaits;
                import java.time.Duration;
                import java.util.concurrent.CompletableFuture;
                class User {
                    void use(KeyedWaits<Integer, String> waits) {
                        CompletableFuture<Long> wrong = waits.await(42, Duration.ofSeconds(1));
                    }
                }
                """);
        assertThat(errors).hasSize(1);
    }

    private List<String> compile(String source) throws Exception {
        Path file = dir.resolve("User.java");
        Files.writeString(file, source);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            String classpath = Stream.of(KeyedWaits.class, Timer.class)
                    .map(KeyedWaitsTypingTest::location).collect(Collectors.joining(File.pathSeparator));
            Boolean ok = javac.getTask(null, files, diagnostics,
                    List.of("-classpath", classpath, "-d", dir.toString(), "-proc:none"), null,
                    files.getJavaFileObjects(file.toFile())).call();
            List<String> errors = diagnostics.getDiagnostics().stream()
                    .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
                    .map(d -> d.getLineNumber() + ": " + d.getMessage(Locale.ROOT)).toList();
            assertThat(ok).isEqualTo(errors.isEmpty());
            return errors;
        }
    }

    private static String location(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
