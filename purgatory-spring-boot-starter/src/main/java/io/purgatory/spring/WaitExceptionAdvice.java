package io.purgatory.spring;

import io.purgatory.PurgatoryFullException;
import io.purgatory.WaitTimeoutException;
import java.util.function.BooleanSupplier;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * The answers of a controller's wait that ended without an event, in Spring MVC and WebFlux:
 * <ul>
 *   <li>its timeout ({@link WaitTimeoutException}): 204 No Content, "nothing yet, ask again";
 *   <li>the waits closed at shutdown ({@link WaitTimeoutException#closed()}): 503 Service
 *       Unavailable;
 *   <li>the waits full ({@link PurgatoryFullException}, {@code max-pending}): 503;
 *   <li>an {@link IllegalStateException} once the shutdown has closed the purgatories (an
 *       {@code await} on closed waits, by a request that came in meanwhile): 503. Before the
 *       shutdown, such an exception is not this advice's: it goes on to the next handler.
 * </ul>
 * Lowest precedence: an {@code @ExceptionHandler} of the controller, or a
 * {@code @ControllerAdvice} of the application that handles these exceptions, answers instead. A
 * wait built with {@code orElse(fallback)} answers its fallback at the timeout and never gets here.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
final class WaitExceptionAdvice {

    private final BooleanSupplier shuttingDown;

    /** The answers; {@code shuttingDown} tells whether the shutdown has begun closing the purgatories. */
    WaitExceptionAdvice(BooleanSupplier shuttingDown) {
        this.shuttingDown = shuttingDown;
    }

    @ExceptionHandler
    ResponseEntity<Void> waitEnded(WaitTimeoutException ended) {
        return ResponseEntity.status(ended.closed() ? HttpStatus.SERVICE_UNAVAILABLE : HttpStatus.NO_CONTENT).build();
    }

    @ExceptionHandler
    ResponseEntity<Void> full(PurgatoryFullException full) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).build();
    }

    /** 503 during the shutdown; otherwise rethrown as it is, so that the next handler has it. */
    @ExceptionHandler
    ResponseEntity<Void> closed(IllegalStateException closed) {
        if (!shuttingDown.getAsBoolean()) {
            throw closed;
        }
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).build();
    }
}
