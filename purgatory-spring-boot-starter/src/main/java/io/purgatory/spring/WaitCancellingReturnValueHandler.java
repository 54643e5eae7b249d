package io.purgatory.spring;

import io.purgatory.KeyedWaits;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.core.MethodParameter;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.context.request.async.DeferredResultProcessingInterceptor;
import org.springframework.web.context.request.async.WebAsyncUtils;
import org.springframework.web.method.support.HandlerMethodReturnValueHandler;
import org.springframework.web.method.support.ModelAndViewContainer;

/**
 * Decorates a Spring MVC handler of {@code CompletionStage} return values (the
 * {@code DeferredResult} handler's, or the reactive types' when Reactor is on the class path) so
 * that a keyed wait's future is cancelled when its request ends without it: at the async request
 * timeout ({@code spring.mvc.async.request-timeout}), on a container error, or at any other end of
 * the request. The wait then leaves its purgatory at once, counted as cancelled, instead of
 * staying pending until its own timeout. A client that goes away ends the request when the
 * container finds out: Tomcat watches no connection while its request is async, so it finds out at
 * the async request timeout. Everything else is the delegate's, unchanged: the answer, the
 * timeout's 503, the error handling. It also counts the requests in flight
 * ({@link AnswersInFlight}), for the shutdown.
 *
 * <p>The cancel runs in {@code afterCompletion}, when the request is complete: earlier, at the
 * timeout notification, it would complete the future (cancelled) and so replace the timeout's
 * answer. After a normal answer the future is done and the cancel does nothing.
 *
 * <p>It marks the request for {@link EndWaitedAnswer}, which ends the answer within its dispatch.
 */
final class WaitCancellingReturnValueHandler implements HandlerMethodReturnValueHandler {

    private static final String INTERCEPTOR_KEY = WaitCancellingReturnValueHandler.class.getName();

    private final HandlerMethodReturnValueHandler delegate;
    private final AnswersInFlight inFlight;

    WaitCancellingReturnValueHandler(HandlerMethodReturnValueHandler delegate, AnswersInFlight inFlight) {
        this.delegate = delegate;
        this.inFlight = inFlight;
    }

    @Override
    public boolean supportsReturnType(MethodParameter returnType) {
        return delegate.supportsReturnType(returnType);
    }

    @Override
    public void handleReturnValue(Object returnValue, MethodParameter returnType, ModelAndViewContainer mavContainer,
                                  NativeWebRequest webRequest) throws Exception {
        if (!KeyedWaits.isWait(returnValue) || ((Future<?>) returnValue).isDone()) {
            delegate.handleReturnValue(returnValue, returnType, mavContainer, webRequest);
            return;
        }
        WebAsyncUtils.getAsyncManager(webRequest)
                .registerDeferredResultInterceptor(INTERCEPTOR_KEY, new CancelAtEnd((Future<?>) returnValue, inFlight));
        inFlight.started();
        EndWaitedAnswer.mark(webRequest);
        try {
            delegate.handleReturnValue(returnValue, returnType, mavContainer, webRequest);
        } catch (Exception | Error notStarted) { // no async request, so no afterCompletion
            inFlight.ended();
            throw notStarted;
        }
    }

    /**
     * Cancels the wait when its request is complete, however it ended (a done wait stays as it
     * is), and counts the request complete.
     */
    private static final class CancelAtEnd implements DeferredResultProcessingInterceptor {
        private final Future<?> waitFuture;
        private final AnswersInFlight inFlight;
        /** Tomcat calls the request's completion twice when its async dispatch ends in sendError: once counts. */
        private final AtomicBoolean ended = new AtomicBoolean();

        CancelAtEnd(Future<?> waitFuture, AnswersInFlight inFlight) {
            this.waitFuture = waitFuture;
            this.inFlight = inFlight;
        }

        @Override
        public <T> void afterCompletion(NativeWebRequest request, DeferredResult<T> deferredResult) {
            if (!ended.compareAndSet(false, true)) {
                return;
            }
            try {
                waitFuture.cancel(false);
            } finally {
                inFlight.ended();
            }
        }
    }
}
