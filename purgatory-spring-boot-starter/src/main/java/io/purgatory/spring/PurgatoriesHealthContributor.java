package io.purgatory.spring;

import io.purgatory.Purgatory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.actuate.health.CompositeHealthContributor;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthContributor;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.NamedContributor;

/**
 * The {@code purgatories} health contributor: one indicator per purgatory bean (any
 * {@code io.purgatory.Purgatory}), by purgatory name ({@code /actuator/health/purgatories/{name}}). A purgatory is
 * {@code OUT_OF_SERVICE} for {@code purgatory.health.rejection-window} after a check saw its
 * {@code rejected} count grow (it refused submissions for {@code max-pending}: this instance is
 * full, send the work elsewhere), and while it is closed; else {@code UP}. Spring Boot answers
 * 503 for {@code OUT_OF_SERVICE}. Rejections are seen at the checks, so a window starts at the
 * first check after them. Thread-safe.
 */
final class PurgatoriesHealthContributor implements CompositeHealthContributor {

    private final PurgatoryBeans beans;
    private final Duration window;
    private final Clock clock;
    private final Map<String, Rejections> rejections = new ConcurrentHashMap<>();

    PurgatoriesHealthContributor(ConfigurableListableBeanFactory beanFactory, Duration window, Clock clock) {
        this.beans = new PurgatoryBeans(beanFactory);
        this.window = window;
        this.clock = clock;
    }

    @Override
    public HealthContributor getContributor(String name) {
        PurgatoryBeans.Named bean = beans.byName().get(name);
        return bean == null ? null : indicator(bean);
    }

    @Override
    public Iterator<NamedContributor<HealthContributor>> iterator() {
        return beans.byName().entrySet().stream()
                .map(e -> NamedContributor.of(e.getKey(), (HealthContributor) indicator(e.getValue())))
                .iterator();
    }

    private HealthIndicator indicator(PurgatoryBeans.Named bean) {
        Purgatory purgatory = bean.purgatory();
        Rejections seen = rejections.computeIfAbsent(bean.bean(), name -> new Rejections());
        return () -> {
            var stats = purgatory.stats();
            Instant now = clock.instant();
            Instant lastSeen = seen.check(stats.rejected(), now);
            boolean rejecting = lastSeen != null && now.isBefore(lastSeen.plus(window));
            Health.Builder health = purgatory.isClosed() || rejecting ? Health.outOfService() : Health.up();
            health.withDetail("pending", stats.pending()).withDetail("rejected", stats.rejected());
            if (lastSeen != null) {
                health.withDetail("rejectionSeenAt", lastSeen.toString());
            }
            return health.withDetail("closed", purgatory.isClosed()).build();
        };
    }

    /** A purgatory's rejected count at the last check, and when a check last saw it grow. */
    private static final class Rejections {
        private long count;
        private Instant grewAt;

        /** Records {@code rejected}, read at {@code now}; returns when the count last grew, or null. */
        synchronized Instant check(long rejected, Instant now) {
            if (rejected > count) {
                count = rejected;
                grewAt = now;
            }
            return grewAt;
        }
    }
}
