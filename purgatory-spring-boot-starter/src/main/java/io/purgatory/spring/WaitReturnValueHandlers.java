package io.purgatory.spring;

import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.web.method.support.HandlerMethodReturnValueHandler;
import org.springframework.web.servlet.mvc.method.annotation.DeferredResultMethodReturnValueHandler;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitterReturnValueHandler;

/**
 * Wraps, in each {@link RequestMappingHandlerAdapter} once it has built its handlers, the two
 * Spring MVC handlers that answer a {@code CompletableFuture} in a {@link WaitCancellingReturnValueHandler}:
 * {@link DeferredResultMethodReturnValueHandler}, and {@link ResponseBodyEmitterReturnValueHandler},
 * which takes every type Reactor can adapt, futures included, when Reactor is on the class path.
 * In place, not in front: the handlers keep their turns, and one added by
 * {@code WebMvcConfigurer.addReturnValueHandlers} would come after the built-in ones and never see
 * a future.
 */
final class WaitReturnValueHandlers implements BeanPostProcessor {

    private final ObjectProvider<AnswersInFlight> inFlight;

    WaitReturnValueHandlers(ObjectProvider<AnswersInFlight> inFlight) {
        this.inFlight = inFlight;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof RequestMappingHandlerAdapter adapter && adapter.getReturnValueHandlers() != null) {
            AnswersInFlight answers = inFlight.getIfAvailable(AnswersInFlight::new);
            List<HandlerMethodReturnValueHandler> handlers = new ArrayList<>(adapter.getReturnValueHandlers());
            handlers.replaceAll(handler -> handler instanceof DeferredResultMethodReturnValueHandler
                    || handler instanceof ResponseBodyEmitterReturnValueHandler
                    ? new WaitCancellingReturnValueHandler(handler, answers) : handler);
            adapter.setReturnValueHandlers(handlers);
        }
        return bean;
    }
}
