package io.purgatory.spring;

import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.KeyedWaits;
import io.purgatory.PurgatoryRuntime;
import io.purgatory.PurgatoryStats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * The purgatory, keyed-waits and runtime beans of a context that exist now: singletons already
 * created, never created here (a lookup at shutdown or from an endpoint must not build a lazy
 * bean). What the shutdown settles, the endpoint lists and the health contributor checks.
 */
final class PurgatoryBeans {

    private final ConfigurableListableBeanFactory beanFactory;

    PurgatoryBeans(ConfigurableListableBeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    /** The keyed waits and purgatories, keyed-waits beans first, each in bean registration order. */
    List<Purgatory> all() {
        List<Purgatory> all = new ArrayList<>();
        for (Named bean : created(KeyedWaits.class, DelayedOperationPurgatory.class)) {
            all.add(new Purgatory(bean.bean(), bean.target()));
        }
        return all;
    }

    /**
     * The keyed waits and purgatories by their names, which tag their meters and key the endpoint.
     *
     * @throws IllegalStateException if two beans have the same purgatory name
     */
    Map<String, Purgatory> byName() {
        Map<String, Purgatory> byName = new LinkedHashMap<>();
        for (Purgatory purgatory : all()) {
            Purgatory clash = byName.putIfAbsent(purgatory.name(), purgatory);
            if (clash != null) {
                throw new IllegalStateException("beans '" + clash.bean() + "' and '" + purgatory.bean()
                        + "' are both purgatories named '" + purgatory.name() + "': the name tags their meters"
                        + " and keys the purgatories endpoint, so it must be unique");
            }
        }
        return byName;
    }

    /** The runtimes, by bean name. */
    Map<String, PurgatoryRuntime> runtimes() {
        Map<String, PurgatoryRuntime> byBean = new LinkedHashMap<>();
        for (Named bean : created(PurgatoryRuntime.class)) {
            byBean.put(bean.bean(), (PurgatoryRuntime) bean.target());
        }
        return byBean;
    }

    private List<Named> created(Class<?>... types) {
        List<Named> found = new ArrayList<>();
        for (Class<?> type : types) {
            for (String name : beanFactory.getBeanNamesForType(type, false, false)) {
                Object singleton = beanFactory.getSingleton(name);
                if (type.isInstance(singleton)) {
                    found.add(new Named(name, singleton));
                }
            }
        }
        return found;
    }

    private record Named(String bean, Object target) {
    }

    /** A keyed-waits or purgatory bean, read the same way whichever it is. */
    record Purgatory(String bean, Object target) {

        /** The purgatory's name: of its meters and threads. */
        String name() {
            return target instanceof KeyedWaits<?, ?> waits ? waits.name()
                    : ((DelayedOperationPurgatory<?>) target).name();
        }

        /** "keyed-waits" or "purgatory". */
        String type() {
            return target instanceof KeyedWaits ? "keyed-waits" : "purgatory";
        }

        PurgatoryStats stats() {
            return target instanceof KeyedWaits<?, ?> waits ? waits.stats()
                    : ((DelayedOperationPurgatory<?>) target).stats();
        }

        boolean isClosed() {
            return target instanceof KeyedWaits<?, ?> waits ? waits.isClosed()
                    : ((DelayedOperationPurgatory<?>) target).isClosed();
        }

        /** Settles the pending operations by the close policy; idempotent. */
        void close() {
            if (target instanceof KeyedWaits<?, ?> waits) {
                waits.close();
            } else {
                ((DelayedOperationPurgatory<?>) target).close();
            }
        }
    }
}
