package io.trunkgate.capture.internal;

import java.io.IOException;
import java.nio.ByteBuffer;

/** An open way to the collector: HEP packets go in one at a time, on the sender's thread only. */
public interface CollectorLink extends AutoCloseable {

    /** Sends the packet whole, or fails: then this link is done, and another is opened. */
    void send(ByteBuffer packet) throws IOException;

    @Override
    void close();

    /** Opens links to one collector. */
    @FunctionalInterface
    interface Connector {
        CollectorLink open() throws IOException;
    }
}
