package io.purgatory.spring;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Controllers that return a keyed wait's future, in Spring MVC and in WebFlux. Both get the
 * answers of a wait that ends without an event ({@link WaitExceptionAdvice}: 204 at its timeout,
 * 503 when closed or full, or when a request comes in after the shutdown closed the waits).
 * Spring MVC also cancels the wait when its request ends without it
 * ({@link WaitCancellingReturnValueHandler}), and ends the answer within its dispatch
 * ({@link EndWaitedAnswer}); WebFlux needs nothing for that: it adapts a
 * {@code CompletionStage} with {@code Mono.fromCompletionStage}, which cancels the future when the
 * response is cancelled (its client went away), as {@code Mono.fromFuture(future)} does.
 */
@AutoConfiguration
@ConditionalOnWebApplication
@ConditionalOnClass(name = "org.springframework.web.bind.annotation.ControllerAdvice")
public final class PurgatoryWebAutoConfiguration {

    /** 204 or 503 for a wait that ended without an event, in both stacks. */
    @Bean
    @ConditionalOnMissingBean
    WaitExceptionAdvice purgatoryWaitExceptionAdvice(ObjectProvider<PurgatoryShutdown> shutdown) {
        return new WaitExceptionAdvice(() -> {
            PurgatoryShutdown begun = shutdown.getIfAvailable();
            return begun != null && begun.hasBegun();
        });
    }

    /** Spring MVC: waits cancelled with their requests, answers ended within their dispatch. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = Type.SERVLET)
    @ConditionalOnClass(name = "org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter")
    static final class WebMvc {

        @Bean
        static WaitReturnValueHandlers purgatoryWaitReturnValueHandlers(ObjectProvider<AnswersInFlight> inFlight) {
            return new WaitReturnValueHandlers(inFlight);
        }

        /** The outermost servlet filter: see {@link EndWaitedAnswer}. */
        @Bean
        EndWaitedAnswer purgatoryEndAnswer() {
            return new EndWaitedAnswer();
        }
    }
}
