package io.trunkgate.gateway;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The parts of a gateway in the order they started, so that they stop in reverse: on a normal stop, and when a
 * later part fails to start. A part that fails to stop is logged and the others still stop.
 */
final class StartedParts implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(StartedParts.class);

    /** How a started part stops. */
    @FunctionalInterface
    interface Stop {
        void stop() throws Exception;
    }

    private record Part(String name, Stop stop) {
    }

    private final Deque<Part> started = new ArrayDeque<>();

    /** Records that {@code name} has started; {@link #close()} stops it before every part recorded earlier. */
    synchronized void started(String name, Stop stop) {
        started.push(new Part(name, stop));
    }

    /** Records that {@code part}, just made and started, stops by its {@code close()}; returns it. */
    <T extends AutoCloseable> T add(String name, T part) {
        started(name, part::close);
        return part;
    }

    /** Stops every part recorded, the last started first; each at most once. */
    @Override
    public void close() {
        Part part;
        while ((part = next()) != null) {
            try {
                part.stop().stop();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                log.warn("stopping {} was interrupted", part.name());
            } catch (Exception | LinkageError e) {
                log.warn("{} did not stop cleanly: {}", part.name(), e.toString());
            }
        }
    }

    private synchronized Part next() {
        return started.poll();
    }
}
