package io.trunkgate.sip.jainsip;

import gov.nist.javax.sip.parser.MessageParser;
import gov.nist.javax.sip.parser.MessageParserFactory;
import gov.nist.javax.sip.stack.SIPTransactionStack;
import gov.nist.javax.sip.stack.UDPMessageChannel;
import java.net.DatagramPacket;
import java.net.InetSocketAddress;

/**
 * JAIN-SIP's message parser factory (one per stack): datagrams are parsed by the stack's
 * {@link ReceivedMessageParser}, which answers a broken request with a plain, rate-capped 400 sent from the
 * listening socket (RFC 3581: symmetric response routing through NATs), where JAIN-SIP would answer it with an
 * echo of the request. The TCP channels of
 * {@link CappedTcpListener} use the same parser. Everything else parses as JAIN-SIP parses it, through
 * {@link LeanMsgParser}.
 */
public final class AnsweringParserFactory implements MessageParserFactory {

    private final ReceivedMessageParser received = new ReceivedMessageParser();
    private final MessageParser plain = new LeanMsgParser();

    ReceivedMessageParser received() {
        return received;
    }

    @Override
    public MessageParser createMessageParser(SIPTransactionStack stack) {
        return (bytes, readBody, strict, listener) -> {
            if (listener instanceof UDPMessageChannel worker
                    && worker.getMessageProcessor() instanceof LanedUdpListener udp) {
                DatagramPacket datagram = StackInternals.datagramBeingProcessed(worker);
                InetSocketAddress source = (InetSocketAddress) datagram.getSocketAddress();
                return received.parse(bytes, source, "UDP", answer -> udp.answer(answer, source));
            }
            return plain.parseSIPMessage(bytes, readBody, strict, listener);
        };
    }
}
