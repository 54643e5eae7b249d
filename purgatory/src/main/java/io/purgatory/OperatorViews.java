package io.purgatory;

import io.purgatory.internal.Admission;
import io.purgatory.internal.Engine;
import io.purgatory.internal.PendingList;
import io.purgatory.internal.TenantLoad;
import io.purgatory.internal.UserCode;
import io.purgatory.timer.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * What an operator reads of a purgatory beyond its counters: its pending operations
 * ({@link Purgatory#listPending}) and its tenants ({@link Purgatory#topTenants}), each read by the
 * engine under no lock but a shard's, then shown here with no lock held, the user's renderer
 * called as user code.
 */
final class OperatorViews {

    private OperatorViews() {
    }

    /** The pending operations of {@code engine}, for {@link Purgatory#listPending}. */
    static List<PendingOperation> listPending(Engine engine, int limit, PendingOrder order, KeyRenderer keys) {
        checkLimit(limit);
        Objects.requireNonNull(order, "order");
        Objects.requireNonNull(keys, "keys");
        if (limit == 0) {
            return List.of();
        }
        List<PendingList.Pending> pending = PendingList.of(engine, limit, order == PendingOrder.SOONEST_DUE_FIRST);
        List<PendingOperation> out = new ArrayList<>(pending.size());
        for (PendingList.Pending p : pending) {
            List<String> shown = p.keys().stream().map(k -> UserCode.render(keys::render, k, engine.name())).toList();
            long ageMs = TimeUnit.NANOSECONDS.toMillis(p.ageNanos());
            long delayMs = p.op().delayMs();
            long timeLeftMs = !engine.isTimed() || delayMs >= Timer.MAX_DELAY_MS ? -1 : Math.max(0L, delayMs - ageMs);
            Object tenant = Admission.tenantOf(p.op());
            String kind = p.op().getClass().getSimpleName(); // an anonymous class has none: its full name then
            out.add(new PendingOperation(kind.isEmpty() ? p.op().getClass().getName() : kind, shown, ageMs,
                    timeLeftMs, p.position(), p.tried(),
                    tenant == null ? null : UserCode.render(keys::render, tenant, engine.name())));
        }
        return out;
    }

    /** The tenants of {@code engine} with the most pending operations, for {@link Purgatory#topTenants}. */
    static List<TenantUsage> topTenants(Engine engine, int limit, KeyRenderer tenants) {
        checkLimit(limit);
        Objects.requireNonNull(tenants, "tenants");
        List<TenantUsage> out = new ArrayList<>();
        for (TenantLoad load : engine.admission().topTenants(limit)) {
            out.add(new TenantUsage(UserCode.render(tenants::render, load.tenant(), engine.name()), load.pending(),
                    load.refused()));
        }
        return out;
    }

    private static void checkLimit(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0: " + limit);
        }
    }
}
