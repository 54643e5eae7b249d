package io.purgatory.spring;

import io.purgatory.KeyRenderer;
import io.purgatory.PendingOperation;
import io.purgatory.PendingOrder;
import io.purgatory.Purgatory;
import io.purgatory.PurgatoryRuntime;
import io.purgatory.PurgatoryStats;
import io.purgatory.TenantUsage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code purgatories} actuator endpoint: each purgatory bean's counters (any {@link Purgatory}:
 * keyed waits, purgatories of operations, future purgatories) by purgatory name
 * ({@code /actuator/purgatories}), and the runtimes by bean name; one purgatory at
 * {@code /actuator/purgatories/{name}}, with its pending operations ({@code limit} and {@code order}
 * as query parameters) and its top tenants. Expose it over the web with
 * {@code management.endpoints.web.exposure.include=purgatories}. The list reads about O(limit)
 * (see {@link Purgatory#listPending(int, PendingOrder, KeyRenderer)}), the rest O(1) counters;
 * creates no bean. Keys and tenants are shown by a {@link KeyRenderer}: they can hold personal data.
 */
@Endpoint(id = "purgatories")
public final class PurgatoriesEndpoint {

    /** The pending operations listed when no {@code limit} is given. */
    public static final int DEFAULT_LIMIT = 20;
    /** The most pending operations one read lists. */
    public static final int MAX_LIMIT = 1000;
    /** The tenants listed, those with the most pending operations. */
    public static final int TOP_TENANTS = 10;

    private final PurgatoryBeans beans;
    private final KeyRenderer keys;

    /** The endpoint of the purgatories in {@code beanFactory}, their keys shown by {@link KeyRenderer#DEFAULT}. */
    public PurgatoriesEndpoint(ConfigurableListableBeanFactory beanFactory) {
        this(beanFactory, KeyRenderer.DEFAULT);
    }

    /**
     * The endpoint of the purgatories in {@code beanFactory}, the keys and tenants of their pending
     * operations shown by {@code keys}.
     *
     * @throws NullPointerException if {@code keys} is null
     */
    public PurgatoriesEndpoint(ConfigurableListableBeanFactory beanFactory, KeyRenderer keys) {
        this.beans = new PurgatoryBeans(beanFactory);
        this.keys = Objects.requireNonNull(keys, "keys");
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

    /**
     * The purgatory named {@code name}, or null (404) if there is none: its counters, its first
     * {@code limit} pending operations in {@code order}, and its top tenants.
     *
     * @param name  the purgatory's name
     * @param limit how many pending operations to list at most, 0 to {@value #MAX_LIMIT}; null:
     *              {@value #DEFAULT_LIMIT}
     * @param order {@code oldest} (the default) or {@code soonest-due}, or a {@link PendingOrder}'s name
     * @throws InvalidEndpointRequestException (400) if {@code limit} or {@code order} is not one of those
     */
    @ReadOperation
    @SuppressWarnings("deprecation") // Spring's @Nullable: the one Spring Boot 3.5 reads (4 reads any @Nullable)
    public PurgatoryDetail purgatory(@Selector String name, @org.springframework.lang.Nullable String limit,
                                     @org.springframework.lang.Nullable String order) {
        int max = limit(limit);
        PendingOrder pendingOrder = order(order);
        PurgatoryBeans.Named bean = beans.byName().get(name);
        if (bean == null) {
            return null;
        }
        Purgatory purgatory = bean.purgatory();
        List<TenantUsage> tenants = purgatory.topTenants(TOP_TENANTS, keys);
        return new PurgatoryDetail(view(bean), purgatory.listPending(max, pendingOrder, keys),
                tenants.isEmpty() ? null : tenants);
    }

    /** {@code limit} as a number, or {@value #DEFAULT_LIMIT} if it is null. */
    static int limit(String limit) {
        if (limit == null) {
            return DEFAULT_LIMIT;
        }
        String value = limit.strip();
        if (!value.matches("[0-9]{1,4}") || Integer.parseInt(value) > MAX_LIMIT) {
            String message = "limit must be a whole number from 0 to " + MAX_LIMIT + " (default " + DEFAULT_LIMIT
                    + "), not '" + limit + "'";
            throw new InvalidEndpointRequestException(message, message);
        }
        return Integer.parseInt(value);
    }

    /** {@code order} as a {@link PendingOrder}, or {@link PendingOrder#OLDEST_FIRST} if it is null. */
    static PendingOrder order(String order) {
        if (order == null) {
            return PendingOrder.OLDEST_FIRST;
        }
        return switch (order.strip().toLowerCase(Locale.ROOT).replace('_', '-')) {
            case "oldest", "oldest-first" -> PendingOrder.OLDEST_FIRST;
            case "soonest-due", "soonest-due-first" -> PendingOrder.SOONEST_DUE_FIRST;
            default -> {
                String message = "order must be oldest or soonest-due (or OLDEST_FIRST, SOONEST_DUE_FIRST), not '"
                        + order + "'";
                throw new InvalidEndpointRequestException(message, message);
            }
        };
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
     * One purgatory as {@code /actuator/purgatories/{name}} shows it: its counters (those of
     * {@link PurgatoryView}, at the top level), its pending operations and its top tenants.
     *
     * @param bean               the bean's name
     * @param type               its type, as in {@link PurgatoryView}
     * @param closed             whether it is closed
     * @param pending            operations (waits) pending: the counter, not the list
     * @param watched            watch entries
     * @param keys               keys with a pending operation
     * @param completed          operations completed after being watched
     * @param completedAtOnce    operations completed when submitted
     * @param expired            operations expired
     * @param cancelled          operations cancelled
     * @param callbackErrors     callbacks that threw
     * @param rejected           submissions refused
     * @param purges             purges of the watch lists
     * @param expirationsRefused expirations the executor refused
     * @param pendingOperations  its first pending operations in the order asked, their keys and tenants
     *                           shown by the endpoint's {@link KeyRenderer}
     * @param topTenants         with tenants, the {@value PurgatoriesEndpoint#TOP_TENANTS} with the most
     *                           pending operations, most first; null (left out) when none has any
     */
    public record PurgatoryDetail(String bean, String type, boolean closed, int pending, int watched, int keys,
                                  long completed, long completedAtOnce, long expired, long cancelled,
                                  long callbackErrors, long rejected, long purges, long expirationsRefused,
                                  List<PendingOperation> pendingOperations, List<TenantUsage> topTenants)
            implements OperationResponseBody {

        PurgatoryDetail(PurgatoryView v, List<PendingOperation> pendingOperations, List<TenantUsage> topTenants) {
            this(v.bean(), v.type(), v.closed(), v.pending(), v.watched(), v.keys(), v.completed(),
                    v.completedAtOnce(), v.expired(), v.cancelled(), v.callbackErrors(), v.rejected(), v.purges(),
                    v.expirationsRefused(), pendingOperations, topTenants);
        }

        /** Its counters alone, as {@code /actuator/purgatories} lists them. */
        public PurgatoryView counters() {
            return new PurgatoryView(bean, type, closed, pending, watched, keys, completed, completedAtOnce,
                    expired, cancelled, callbackErrors, rejected, purges, expirationsRefused);
        }
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
