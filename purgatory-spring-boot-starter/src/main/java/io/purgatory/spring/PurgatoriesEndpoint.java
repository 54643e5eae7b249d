package io.purgatory.spring;

import io.purgatory.Purgatory;
import io.purgatory.PurgatoryRuntime;
import io.purgatory.PurgatoryStats;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code purgatories} actuator endpoint: each purgatory bean's counters (any {@link Purgatory}:
 * keyed waits, purgatories of operations, future purgatories) by purgatory name
 * ({@code /actuator/purgatories}, or one at {@code /actuator/purgatories/{name}}), and the runtimes
 * by bean name. Expose it over the web with
 * {@code management.endpoints.web.exposure.include=purgatories}. Reads O(1) counters; creates no
 * bean.
 */
@Endpoint(id = "purgatories")
public final class PurgatoriesEndpoint {

    private final PurgatoryBeans beans;

    /** The endpoint of the purgatories in {@code beanFactory}. */
    public PurgatoriesEndpoint(ConfigurableListableBeanFactory beanFactory) {
        this.beans = new PurgatoryBeans(beanFactory);
    }

    /** Every purgatory and runtime. */
    @ReadOperation
    public Purgatories purgatories() {
        Map<String, PurgatoryView> purgatories = new LinkedHashMap<>();
        beans.byName().forEach((name, bean) -> purgatories.put(name, view(bean)));
        Map<String, RuntimeView> runtimes = new LinkedHashMap<>();
        beans.runtimes().forEach((bean, runtime) -> runtimes.put(bean, view(runtime)));
        return new Purgatories(purgatories, runtimes);
    }

    /** The purgatory named {@code name}, or null (404) if there is none. */
    @ReadOperation
    public PurgatoryView purgatory(@Selector String name) {
        PurgatoryBeans.Named bean = beans.byName().get(name);
        return bean == null ? null : view(bean);
    }

    private static PurgatoryView view(PurgatoryBeans.Named bean) {
        Purgatory purgatory = bean.purgatory();
        PurgatoryStats s = purgatory.stats();
        return new PurgatoryView(bean.bean(), type(purgatory), purgatory.isClosed(), s.pending(), s.watched(),
                s.keys(), s.completed(), s.completedAtOnce(), s.expired(), s.cancelled(), s.callbackErrors(),
                s.rejected(), s.purges(), s.expirationsRefused());
    }

    /**
     * The purgatory's class, by its simple name in kebab case: {@code keyed-waits},
     * {@code delayed-operation-purgatory}, {@code delayed-future-purgatory}.
     */
    static String type(Purgatory purgatory) {
        Class<?> type = purgatory.getClass();
        String simple = type.getSimpleName().isEmpty() ? type.getName() : type.getSimpleName();
        return simple.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    private static RuntimeView view(PurgatoryRuntime runtime) {
        return new RuntimeView(runtime.name(), runtime.isClosed(), runtime.expirationsRefused());
    }

    /**
     * The endpoint's answer.
     *
     * @param purgatories each purgatory bean, by purgatory name
     * @param runtimes    each runtime bean, by bean name
     */
    public record Purgatories(Map<String, PurgatoryView> purgatories, Map<String, RuntimeView> runtimes)
            implements OperationResponseBody {
    }

    /**
     * One purgatory's counters: those of {@link PurgatoryStats}, with its bean name, its type and
     * whether it is closed.
     *
     * @param bean               the bean's name
     * @param type               its class's simple name in kebab case: {@code keyed-waits},
     *                           {@code delayed-operation-purgatory} or {@code delayed-future-purgatory}
     * @param closed             whether it is closed
     * @param pending            operations (waits) pending
     * @param watched            watch entries (a pending operation counts once per key)
     * @param keys               keys with a pending operation
     * @param completed          operations completed after being watched
     * @param completedAtOnce    operations completed when submitted, never watched
     * @param expired            operations expired (and, by default, settled at close)
     * @param cancelled          operations cancelled (a wait whose request ended without it)
     * @param callbackErrors     callbacks that threw
     * @param rejected           submissions refused for {@code max-pending}
     * @param purges             purges of the watch lists
     * @param expirationsRefused expirations the executor refused (on a shared runtime: the runtime's)
     */
    public record PurgatoryView(String bean, String type, boolean closed, int pending, int watched, int keys,
                                long completed, long completedAtOnce, long expired, long cancelled,
                                long callbackErrors, long rejected, long purges, long expirationsRefused)
            implements OperationResponseBody {
    }

    /**
     * One runtime.
     *
     * @param name               its name (of its threads)
     * @param closed             whether it is closed
     * @param expirationsRefused expirations its executor refused
     */
    public record RuntimeView(String name, boolean closed, long expirationsRefused) {
    }
}
