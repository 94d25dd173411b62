package io.trunkgate.sip.transport;

import gov.nist.javax.sip.SipStackImpl;
import gov.nist.javax.sip.stack.MessageProcessor;
import gov.nist.javax.sip.stack.MessageProcessorFactory;
import gov.nist.javax.sip.stack.NioMessageProcessorFactory;
import gov.nist.javax.sip.stack.SIPTransactionStack;
import java.io.IOException;
import java.net.InetAddress;
import javax.sip.ListeningPoint;

/**
 * JAIN-SIP's message processor factory (one per stack): TCP listens through a {@link GuardedTcpMessageProcessor}
 * with the limits {@link GuardedTransports#configure} put in the stack's properties; every other transport is
 * JAIN-SIP's NIO one.
 */
public final class GuardedMessageProcessorFactory implements MessageProcessorFactory {

    private final MessageProcessorFactory nio = new NioMessageProcessorFactory();

    @Override
    public MessageProcessor createMessageProcessor(SIPTransactionStack stack, InetAddress address, int port,
                                                   String transport) throws IOException {
        if (!transport.equalsIgnoreCase(ListeningPoint.TCP)) {
            return nio.createMessageProcessor(stack, address, port, transport);
        }
        return new GuardedTcpMessageProcessor(address, stack, port,
                GuardedTransports.tcpLimits(((SipStackImpl) stack).getConfigurationProperties()),
                ((GuardedMessageParserFactory) stack.getMessageParserFactory()).received());
    }
}
