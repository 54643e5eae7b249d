package io.purgatory.spring;

import io.purgatory.KeyedWaits;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.Future;
import org.springframework.core.MethodParameter;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.context.request.async.DeferredResultProcessingInterceptor;
import org.springframework.web.context.request.async.WebAsyncUtils;
import org.springframework.web.method.support.HandlerMethodReturnValueHandler;
import org.springframework.web.method.support.ModelAndViewContainer;
import org.springframework.web.servlet.HandlerInterceptor;

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
 * <p>The answer is ended within its dispatch ({@link EndAnswer}): Tomcat counts an async request
 * complete, for its graceful shutdown and for {@code afterCompletion}, before it writes a response
 * still in its buffer, so a server stopped at that instant would close the connection with the
 * answer unsent.
 */
final class WaitCancellingReturnValueHandler implements HandlerMethodReturnValueHandler {

    private static final String INTERCEPTOR_KEY = WaitCancellingReturnValueHandler.class.getName();

    /** The request attribute that marks a request that waits on a wait, for {@link EndAnswer}. */
    private static final String WAITED = WaitCancellingReturnValueHandler.class.getName() + ".waited";

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
        webRequest.setAttribute(WAITED, true, RequestAttributes.SCOPE_REQUEST);
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
    private record CancelAtEnd(Future<?> waitFuture, AnswersInFlight inFlight)
            implements DeferredResultProcessingInterceptor {
        @Override
        public <T> void afterCompletion(NativeWebRequest request, DeferredResult<T> deferredResult) {
            try {
                waitFuture.cancel(false);
            } finally {
                inFlight.ended();
            }
        }
    }

    /**
     * Ends the answer of a request that waited before its dispatch returns, while Tomcat still
     * counts the request in progress. Otherwise the answer stays in the response's buffer (and a
     * chunked one lacks its last chunk) until after Tomcat has counted the request complete (its
     * graceful shutdown then finds the server idle and may stop it) and after the request's {@code
     * afterCompletion} (so after {@link AnswersInFlight} has let an immediate shutdown go on). Ended
     * as the container would end it, by closing the response's stream (Tomcat sets the length of an
     * uncommitted body then), the answer is in the socket's buffer and survives the server's close.
     * Registered for every handler; it ends only the answers of requests that waited, and not one
     * that failed with an exception no handler resolved: Tomcat gives that one its error page.
     * (One resolved by {@code sendError} is suspended: the close does nothing to it.)
     */
    static final class EndAnswer implements HandlerInterceptor {
        @Override
        public void afterCompletion(HttpServletRequest request, HttpServletResponse response, Object handler,
                                    Exception ex) throws IOException {
            if (ex == null && request.getAttribute(WAITED) != null && !request.isAsyncStarted()) {
                try {
                    response.getOutputStream().close();
                } catch (IllegalStateException writerInUse) {
                    response.getWriter().close();
                }
            }
        }
    }
}
