package io.purgatory.spring;

import io.purgatory.Purgatory;
import io.purgatory.PurgatoryRuntime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * The purgatory beans (every {@link Purgatory}: keyed waits, purgatories of operations, future
 * purgatories) and runtime beans of a context that exist now: singletons already created, never
 * created here (a lookup at shutdown or from an endpoint must not build a lazy bean). What the
 * shutdown settles, the endpoint lists and the health contributor checks.
 */
final class PurgatoryBeans {

    private final ConfigurableListableBeanFactory beanFactory;

    PurgatoryBeans(ConfigurableListableBeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    /** The purgatory beans, in bean registration order. */
    List<Named> all() {
        List<Named> all = new ArrayList<>();
        for (String bean : beanFactory.getBeanNamesForType(Purgatory.class, false, false)) {
            if (beanFactory.getSingleton(bean) instanceof Purgatory purgatory) {
                all.add(new Named(bean, purgatory));
            }
        }
        return all;
    }

    /**
     * The purgatory beans by their purgatories' names, which tag their meters and key the endpoint.
     *
     * @throws IllegalStateException if two beans have the same purgatory name
     */
    Map<String, Named> byName() {
        Map<String, Named> byName = new LinkedHashMap<>();
        for (Named named : all()) {
            Named clash = byName.putIfAbsent(named.purgatory().name(), named);
            if (clash != null) {
                throw new IllegalStateException("beans '" + clash.bean() + "' and '" + named.bean()
                        + "' are both purgatories named '" + named.purgatory().name() + "': the name tags their"
                        + " meters and keys the purgatories endpoint, so it must be unique");
            }
        }
        return byName;
    }

    /** The runtimes, by bean name. */
    Map<String, PurgatoryRuntime> runtimes() {
        Map<String, PurgatoryRuntime> byBean = new LinkedHashMap<>();
        for (String bean : beanFactory.getBeanNamesForType(PurgatoryRuntime.class, false, false)) {
            if (beanFactory.getSingleton(bean) instanceof PurgatoryRuntime runtime) {
                byBean.put(bean, runtime);
            }
        }
        return byBean;
    }

    /** A purgatory bean: its bean name and the purgatory. */
    record Named(String bean, Purgatory purgatory) {
    }
}
