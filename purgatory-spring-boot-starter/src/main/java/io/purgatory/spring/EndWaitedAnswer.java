package io.purgatory.spring;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.core.Ordered;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Ends the answer of a Spring MVC request that waited on a keyed wait before the dispatch that
 * gives it returns to Tomcat. Tomcat counts an async request complete (for its graceful shutdown,
 * and for the request's {@code afterCompletion}, where {@link AnswersInFlight} counts it) before
 * it writes a response still in its buffer: a server stopped in between closed the connection
 * with the answer unsent (the client's retried GET then found it refusing connections). Ended as
 * the container would end it, by closing the response's stream (Tomcat sets the length of an
 * uncommitted body then), the answer is in the socket's buffer and survives the server's close.
 *
 * <p>The outermost filter, on the async dispatch: it ends the answer after every other filter and
 * interceptor has had its turn, and only the answer of a request {@link #mark marked} as one that
 * waited. When the chain throws, it ends nothing: Tomcat gives that request its error page. So
 * does it for an answer given by {@code sendError}, which is suspended (the close does nothing to
 * it): Tomcat writes the error page and ends it itself, in the same dispatch.
 */
final class EndWaitedAnswer extends OncePerRequestFilter implements Ordered {

    private static final String WAITED = EndWaitedAnswer.class.getName() + ".waited";

    /** Marks {@code request} as one that waits on a keyed wait: its answer is ended in its dispatch. */
    static void mark(NativeWebRequest request) {
        request.setAttribute(WAITED, true, RequestAttributes.SCOPE_REQUEST);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        chain.doFilter(request, response);
        if (request.getAttribute(WAITED) != null && !request.isAsyncStarted()) {
            try {
                response.getOutputStream().close();
            } catch (IllegalStateException writerInUse) {
                response.getWriter().close();
            }
        }
    }

    @Override
    protected boolean shouldNotFilterAsyncDispatch() {
        return false;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
