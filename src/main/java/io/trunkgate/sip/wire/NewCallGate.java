package io.trunkgate.sip.wire;

import io.trunkgate.config.PresentedCertificate;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Optional;

/** Decides whether a new INVITE is shed before the stack parses it (see {@link NewCallTriage}). */
@FunctionalInterface
public interface NewCallGate {

    /**
     * The Reason text of a 503 for a new INVITE from {@code source} (with the client {@code certificate} of its
     * TLS connection, if any) with this Call-ID, From tag ({@code callerTag}, "" when it has none) and CSeq number
     * ({@code cseq}, -1 when it could not be read), or empty to let it go on to the stack. {@code waitAhead} is how long
     * what is ahead of this INVITE has waited: in the UDP listener's socket, then the oldest message waiting for the
     * thread that would take it (zero when nothing waits). An INVITE shed here is accounted for by the gate:
     * nothing else sees it.
     */
    Optional<String> shed(InetAddress source, Optional<PresentedCertificate> certificate, String callId,
                          String callerTag, long cseq, Duration waitAhead);
}
