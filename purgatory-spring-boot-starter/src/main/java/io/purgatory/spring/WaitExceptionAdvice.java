package io.purgatory.spring;

import io.purgatory.PurgatoryFullException;
import io.purgatory.WaitTimeoutException;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * The answers of a controller's wait that ended without an event, in Spring MVC and WebFlux,
 * whether {@code await} threw or failed the future it returned (Spring unwraps the future's
 * {@code CompletionException}, so both reach the same handler):
 * <ul>
 *   <li>its timeout ({@link WaitTimeoutException}): 204 No Content, "nothing yet, ask again";
 *   <li>the waits closed at shutdown ({@link WaitTimeoutException#closed()}): 503 Service
 *       Unavailable;
 *   <li>the waits full ({@link PurgatoryFullException}, {@code max-pending}): 429 Too Many
 *       Requests, with {@code Retry-After: 1}: this instance is full, ask again or elsewhere;
 *   <li>an {@link IllegalStateException} once the shutdown has closed the purgatories (an
 *       {@code await} on closed waits, by a request that came in meanwhile): 503. Before the
 *       shutdown, such an exception is not this advice's: it goes on to the next handler.
 * </ul>
 * The 429 and 503 answers are logged at INFO, one line without a stack trace: they are the
 * service working as designed under load or at shutdown, not errors. Lowest precedence: an
 * {@code @ExceptionHandler} of the controller, or a {@code @ControllerAdvice} of the application
 * that handles these exceptions, answers instead. A wait built with {@code orElse(fallback)}
 * answers its fallback at the timeout and never gets here.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
final class WaitExceptionAdvice {

    private static final Logger LOG = LoggerFactory.getLogger(WaitExceptionAdvice.class);

    private final BooleanSupplier shuttingDown;

    /** The answers; {@code shuttingDown} tells whether the shutdown has begun closing the purgatories. */
    WaitExceptionAdvice(BooleanSupplier shuttingDown) {
        this.shuttingDown = shuttingDown;
    }

    @ExceptionHandler
    ResponseEntity<Void> waitEnded(WaitTimeoutException ended) {
        if (!ended.closed()) {
            return ResponseEntity.status(HttpStatus.NO_CONTENT).build();
        }
        LOG.info("503 Service Unavailable: the wait was answered by its purgatory's close ({})", ended.getMessage());
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).build();
    }

    @ExceptionHandler
    ResponseEntity<Void> full(PurgatoryFullException full) {
        LOG.info("429 Too Many Requests: {}", full.getMessage());
        return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).header("Retry-After", "1").build();
    }

    /** 503 during the shutdown; otherwise rethrown as it is, so that the next handler has it. */
    @ExceptionHandler
    ResponseEntity<Void> closed(IllegalStateException closed) {
        if (!shuttingDown.getAsBoolean()) {
            throw closed;
        }
        LOG.info("503 Service Unavailable: the purgatories are closed for the shutdown ({})", closed.getMessage());
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).build();
    }
}
