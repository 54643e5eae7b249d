package io.purgatory.spring;

import io.purgatory.Purgatory;
import io.purgatory.PurgatoryStats;
import io.purgatory.spring.health.Check;
import io.purgatory.spring.health.NamedChecks;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * The checks of the {@code purgatories} health contributor: one per purgatory bean (any
 * {@code io.purgatory.Purgatory}), by purgatory name. A purgatory is {@code OUT_OF_SERVICE} for
 * {@code purgatory.health.rejection-window} after a check saw its {@code rejected} count grow (it
 * refused submissions for {@code max-pending}: this instance is full, send the work elsewhere),
 * and while it is closed; else {@code UP}. Rejections are seen at the checks, so a window starts at
 * the first check after them. Details: {@code pending}, {@code rejected}, {@code rejectionSeenAt},
 * {@code closed}. Each Spring Boot line's starter shows them as its own health. Thread-safe.
 */
public final class PurgatoryHealthChecks implements NamedChecks {

    private final PurgatoryBeans beans;
    private final Duration window;
    private final Clock clock;
    private final Map<String, Rejections> rejections = new ConcurrentHashMap<>();

    /** The checks of the purgatory beans of {@code beanFactory}, with the rejection window, on {@code clock}. */
    public PurgatoryHealthChecks(ConfigurableListableBeanFactory beanFactory, Duration window, Clock clock) {
        this.beans = new PurgatoryBeans(beanFactory);
        this.window = window;
        this.clock = clock;
    }

    @Override
    public Map<String, Check> checkAll() {
        Map<String, Check> all = new LinkedHashMap<>();
        beans.byName().forEach((name, bean) -> all.put(name, check(bean)));
        return all;
    }

    @Override
    public Check check(String name) {
        PurgatoryBeans.Named bean = beans.byName().get(name);
        return bean == null ? null : check(bean);
    }

    private Check check(PurgatoryBeans.Named bean) {
        Purgatory purgatory = bean.purgatory();
        PurgatoryStats stats = purgatory.stats();
        Instant now = clock.instant();
        Instant lastSeen = rejections.computeIfAbsent(bean.bean(), name -> new Rejections())
                .check(stats.rejected(), now);
        boolean rejecting = lastSeen != null && now.isBefore(lastSeen.plus(window));
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("pending", stats.pending());
        details.put("rejected", stats.rejected());
        if (lastSeen != null) {
            details.put("rejectionSeenAt", lastSeen.toString());
        }
        details.put("closed", purgatory.isClosed());
        return new Check(purgatory.isClosed() || rejecting ? Check.Status.OUT_OF_SERVICE : Check.Status.UP, details);
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
