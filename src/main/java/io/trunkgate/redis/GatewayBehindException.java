package io.trunkgate.redis;

import java.util.concurrent.TimeoutException;

/**
 * A call's reply was not read within its wait while Redis answered calls sent after it: Redis is up, and this
 * gateway is behind on its own work (short of CPU). The call has no decision, but it is no evidence that Redis is
 * down: the circuit breaker does not count it, and admission answers it as overload rather than by the Redis-down
 * policy.
 */
public final class GatewayBehindException extends TimeoutException {

    public GatewayBehindException(String message) {
        super(message);
    }

    /** Whether {@code error} or one of its causes is a {@link GatewayBehindException}. */
    public static boolean causedBy(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof GatewayBehindException) {
                return true;
            }
        }
        return false;
    }
}
