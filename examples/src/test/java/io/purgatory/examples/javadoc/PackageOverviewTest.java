package io.purgatory.examples.javadoc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The package overview (package-info.java) of every module that publishes javadoc links every
 * public top-level type of its package, so a reader who opens the package finds every entry point
 * there: a type added without a line in its overview fails here.
 */
class PackageOverviewTest {

    @Test
    void packageInfo_everyPublishedPackage_linksEveryPublicTopLevelType() {
        List<String> checked = new ArrayList<>();
        List<String> unnamed = new ArrayList<>();
        for (String module : PublishedModules.names()) {
            for (Path dir : PublishedModules.packages(module)) {
                String overview = PublishedModules.read(dir.resolve("package-info.java"))
                        .replaceAll("\\n\\s*\\*", " "); // one line: a {@link may break across two
                String packageName = overview.replaceAll("(?s).*\\bpackage ([\\w.]+);.*", "$1");
                for (String type : PublishedModules.publicTypes(dir).keySet()) {
                    Pattern link = Pattern.compile("\\{@link\\s+(?:" + Pattern.quote(packageName + ".") + ")?"
                            + type + "[\\s}#]");
                    checked.add(type);
                    if (!link.matcher(overview).find()) {
                        unnamed.add(module + ": " + packageName + "." + type);
                    }
                }
            }
        }

        assertThat(checked).as("public types found").contains("DelayedOperation", "KeyedWaits", "ManualTimer",
                "MicrometerMetrics", "KafkaFeed", "PurgatoryFactory");
        assertThat(unnamed).as("public types that their package-info.java does not {@link}").isEmpty();
    }
}
