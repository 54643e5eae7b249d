package io.purgatory.internal;

import io.purgatory.internal.Operation.Owner;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

/**
 * A purgatory's bounds on pending operations: {@code maxPending} for all of them and, with tenants,
 * {@code maxPendingPerTenant} for each tenant's. A submission takes a slot of each before its claim;
 * each is freed exactly once, by its settle or by the undoing of its failed submission (Engine N1).
 * It also keeps the least delay admitted, PendingList's bound of due times. O(1); no bound costs
 * nothing.
 */
public final class Admission {

    /*
     * Implementation notes.
     *
     * (S1) A tenant's slots are counted by a Tenant held in a map only while it has pending
     *      operations, so the map holds at most as many tenants as operations are pending. The one
     *      that frees the last slot retires the Tenant (its count 0 -> -1, never taken again) and
     *      removes it; a submission that finds a retired one removes it and makes a new one.
     * (S2) What the tenant function returns is a map key: its hashCode and equals are called as a
     *      JDK map calls them; what they throw fails the submission as an IllegalArgumentException, as a
     *      watch key's does (a KeyedWaits.await throws it rather than failing the future, which is for
     *      capacity and a close). What they throw as the last slot is freed is logged: the settle
     *      stands and the retired tenant stays mapped (a tenant whose equals throws is met again only
     *      by a take of it, which fails). A null tenant counts against no tenant's bound.
     */

    private final String name;
    private final int maxPending;
    private final PurgatoryCounters counters;
    private final EngineConfig.Refusals refusals;
    /** Slots taken; null without a bound. */
    private final AtomicInteger slots;
    /** An operation's tenant; null without tenants. */
    private final BiFunction<Operation, Object, Object> tenantOf;
    private final int maxPerTenant;
    private final ConcurrentHashMap<Object, Tenant> tenants;
    /** The least delay admitted so far, in ms: PendingList's bound of due times. */
    private final AtomicLong minDelayMs = new AtomicLong(Long.MAX_VALUE);
    /** The greatest, in ms: when it is the least, PendingList's walk in watch order is in due order too. */
    private final AtomicLong maxDelayMs = new AtomicLong(Long.MIN_VALUE);

    Admission(EngineConfig config, PurgatoryCounters counters) {
        this.name = config.name();
        this.maxPending = config.maxPending();
        this.counters = counters;
        this.refusals = config.refusals();
        this.slots = maxPending > 0 ? new AtomicInteger() : null;
        this.tenantOf = config.tenantOf();
        this.maxPerTenant = config.maxPendingPerTenant();
        this.tenants = tenantOf != null ? new ConcurrentHashMap<>() : null;
    }

    /** The slots of one tenant, and how often it was refused while it had pending operations. */
    static final class Tenant {
        final Object id;
        /** Its pending operations; -1 once retired (S1). */
        final AtomicInteger pending = new AtomicInteger();
        final AtomicLong refused = new AtomicLong();

        Tenant(Object id) {
            this.id = id;
        }
    }

    /**
     * Takes the slots of {@code op}, on {@code firstKey} first: asks its tenant, then takes the purgatory's slot,
     * then its tenant's. Returns its tenant, or null if it has none. The tenant function runs holding no slot
     * (UserCode U4): while it runs, or if it calls back into this purgatory, no other submission is refused for
     * a slot that its own may never hold.
     *
     * @throws RuntimeException the refusal (counted as a rejection) if either bound is reached,
     *                          or an IllegalArgumentException if the tenant function threw; either
     *                          way no slot is held
     */
    Tenant take(Operation op, Object firstKey) {
        long delayMs = op.delayMs();
        if (delayMs < minDelayMs.get()) { // each written only when it moves: no shared write on the common path
            minDelayMs.accumulateAndGet(delayMs, Math::min);
        }
        if (delayMs > maxDelayMs.get()) {
            maxDelayMs.accumulateAndGet(delayMs, Math::max);
        }
        Object id = tenantOf == null ? null : UserCode.tenantOf(tenantOf, op, firstKey); // (U4): before any slot
        if (slots != null && slots.incrementAndGet() > maxPending) {
            slots.decrementAndGet();
            counters.rejected();
            throw refusals.full(name, maxPending);
        }
        if (id == null) {
            return null;
        }
        try {
            return takeTenant(id); // (S2)
        } catch (RuntimeException | Error refused) {
            freeOne();
            throw refused;
        }
    }

    private Tenant takeTenant(Object id) {
        for (;;) {
            Tenant t;
            try {
                t = tenants.computeIfAbsent(id, Tenant::new);
            } catch (RuntimeException keyFailure) { // (S2): fails the submission as a watch key's would
                throw new IllegalArgumentException("the tenant's hashCode or equals threw "
                        + keyFailure.getClass().getName() + "; the operation was not submitted", keyFailure);
            }
            int n = t.pending.get();
            if (n < 0) { // retired by its last free (S1)
                tenants.remove(id, t);
            } else if (n >= maxPerTenant) {
                t.refused.incrementAndGet();
                counters.rejectedForTenant();
                throw refusals.tenantFull(name, id, maxPerTenant);
            } else if (t.pending.compareAndSet(n, n + 1)) {
                return t;
            }
        }
    }

    /** Frees the slots taken by {@link #take}, which returned {@code tenant}. */
    void free(Tenant tenant) {
        freeOne();
        if (tenant != null && tenant.pending.decrementAndGet() == 0 && tenant.pending.compareAndSet(0, -1)) {
            try {
                tenants.remove(tenant.id, tenant); // (S1)
            } catch (RuntimeException | Error keyFailure) { // (S2): the settle that freed it stands, whole
                UserCode.log(name, "its tenant's hashCode or equals threw as the tenant's last operation settled;"
                        + " the settle stands, the tenant stays mapped, retired", keyFailure);
            }
        }
    }

    private void freeOne() {
        if (slots != null) {
            slots.decrementAndGet();
        }
    }

    /** The tenant of pending {@code op}, or null: read without its claim, so a snapshot (S1). */
    public static Object tenantOf(Operation op) {
        Owner owner = op.owner;
        return owner == null ? null : owner.tenant();
    }

    /** The least delay of an operation admitted so far, in ms; Long.MAX_VALUE before the first. */
    long minDelayMs() {
        return minDelayMs.get();
    }

    /** True iff every operation admitted so far had the same delay. */
    boolean oneDelay() {
        return minDelayMs.get() == maxDelayMs.get();
    }

    /** Whether operations have tenants. */
    public boolean hasTenants() {
        return tenants != null;
    }

    /** How many tenants have pending operations; O(1). */
    public int tenantCount() {
        return tenants == null ? 0 : tenants.size();
    }

    /**
     * The {@code limit} tenants with the most pending operations, most first. O(tenants); allocates
     * only the loads it keeps.
     */
    public List<TenantLoad> topTenants(int limit) {
        PriorityQueue<TenantLoad> top = new PriorityQueue<>(Comparator.comparingInt(TenantLoad::pending));
        if (tenants != null && limit > 0) {
            for (Tenant t : tenants.values()) {
                int n = t.pending.get();
                if (n > 0 && (top.size() < limit || n > top.peek().pending())) {
                    top.add(new TenantLoad(t.id, n, t.refused.get()));
                    if (top.size() > limit) {
                        top.poll();
                    }
                }
            }
        }
        List<TenantLoad> out = new ArrayList<>(top);
        out.sort(Comparator.comparingInt(TenantLoad::pending).reversed());
        return out;
    }
}
