package io.trunkgate.overload;

import java.io.IOException;

/** A UDP socket whose backlog {@link OverloadController#probeSockets()} samples and probes. */
interface ProbedSocket {

    /** How long the oldest datagram still unread in the socket has waited, in nanoseconds (as of the probes). */
    long socketWaitNanos();

    /** Whether nothing waits in the socket: it is probed less often. */
    boolean relaxed();

    /** Sends the next probe, unless the socket is relaxed and was probed lately. */
    void sendProbe() throws IOException;
}
