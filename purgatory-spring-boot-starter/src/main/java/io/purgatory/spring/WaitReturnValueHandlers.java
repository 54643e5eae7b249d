package io.purgatory.spring;

import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.web.method.support.HandlerMethodReturnValueHandler;
import org.springframework.web.servlet.mvc.method.annotation.DeferredResultMethodReturnValueHandler;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * Puts a {@link WaitCancellingReturnValueHandler} in the place of Spring MVC's
 * {@link DeferredResultMethodReturnValueHandler} in each {@link RequestMappingHandlerAdapter}, once
 * the adapter has built its handlers. In place, not in front: the handlers before it keep their
 * turn, and one added by {@code WebMvcConfigurer.addReturnValueHandlers} would come after the
 * built-in one and never see a future.
 */
final class WaitReturnValueHandlers implements BeanPostProcessor {

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof RequestMappingHandlerAdapter adapter && adapter.getReturnValueHandlers() != null) {
            List<HandlerMethodReturnValueHandler> handlers = new ArrayList<>(adapter.getReturnValueHandlers());
            handlers.replaceAll(handler -> handler instanceof DeferredResultMethodReturnValueHandler
                    ? new WaitCancellingReturnValueHandler(handler) : handler);
            adapter.setReturnValueHandlers(handlers);
        }
        return bean;
    }
}
