package io.purgatory.spring;

import io.purgatory.PurgatoryRuntime;
import io.purgatory.timer.TimerSettings;
import java.util.concurrent.Executor;
import org.springframework.beans.factory.BeanFactory;

/**
 * The one place where the {@code purgatory.runtime.*} properties meet the core's runtime builder:
 * name, tick, wheel size, back-pressure and the expiration executor. A setting added to the core
 * is added here, to {@link PurgatoryProperties.SharedRuntime} and to {@link PropertyRules}.
 */
final class RuntimeSettings {

    private RuntimeSettings() {
    }

    /** The shared runtime, configured by {@code runtime}, its expiration executor looked up in {@code beans}. */
    static PurgatoryRuntime build(PurgatoryProperties.SharedRuntime runtime, BeanFactory beans) {
        TimerSettings timer = TimerSettings.DEFAULT.withTick(runtime.getTick()).withWheelSize(runtime.getWheelSize());
        if (runtime.getBackPressure() != null) {
            timer = timer.withBackPressure(runtime.getBackPressure());
        }
        PurgatoryRuntime.Builder builder = PurgatoryRuntime.builder(runtime.getName()).timerSettings(timer);
        if (runtime.getExpirationExecutor() != null) {
            builder.expirationExecutor(beans.getBean(runtime.getExpirationExecutor(), Executor.class));
        }
        return builder.build();
    }
}
