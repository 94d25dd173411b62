package io.trunkgate.sip.jainsip;

import gov.nist.javax.sip.SipStackImpl;
import gov.nist.javax.sip.stack.MessageProcessor;
import gov.nist.javax.sip.stack.MessageProcessorFactory;
import gov.nist.javax.sip.stack.NioMessageProcessorFactory;
import gov.nist.javax.sip.stack.SIPTransactionStack;
import io.trunkgate.overload.OverloadController;
import io.trunkgate.sip.wire.NewCallTriage;
import java.io.IOException;
import java.net.InetAddress;
import java.util.Properties;
import javax.sip.ListeningPoint;

/**
 * JAIN-SIP's message processor factory (one per stack): TCP and TLS listen through a {@link CappedTcpListener}
 * with the limits {@link TransportProperties#configure} put in the stack's properties, TLS with the
 * {@link TlsEngines} handed to the stack; UDP is JAIN-SIP's, with its
 * workers fed through its {@link LanedUdpListener}'s receive loop; every other transport is JAIN-SIP's
 * NIO one. UDP and TCP listeners put new calls to the stack's {@link NewCallTriage} before anything else; UDP
 * listeners feed the overload controller handed to the stack, and all report their messages to the stack's
 * {@link io.trunkgate.capture.Capture} (see {@link TransportProperties#creating}).
 */
public final class ListenerFactory implements MessageProcessorFactory {

    private final MessageProcessorFactory nio = new NioMessageProcessorFactory();
    private final NewCallTriage newCalls = new NewCallTriage();

    /** Where this stack's listeners shed new calls before parsing them. */
    public NewCallTriage newCalls() {
        return newCalls;
    }

    @Override
    public MessageProcessor createMessageProcessor(SIPTransactionStack stack, InetAddress address, int port,
                                                   String transport) throws IOException {
        Properties properties = ((SipStackImpl) stack).getConfigurationProperties();
        if (transport.equalsIgnoreCase(ListeningPoint.UDP)) {
            OverloadController overload = TransportProperties.overloadOf(((SipStackImpl) stack).getStackName());
            return new LanedUdpListener(address, stack, port, TransportProperties.workerThreads(properties),
                    SipStackImpl.MAX_DATAGRAM_SIZE, overload, TransportProperties.udpQueue(properties, overload),
                    newCalls, TransportProperties.captureOf(((SipStackImpl) stack).getStackName()));
        }
        TlsEngines tls;
        if (transport.equalsIgnoreCase(ListeningPoint.TLS)) {
            tls = TransportProperties.tlsOf(((SipStackImpl) stack).getStackName());
        } else if (transport.equalsIgnoreCase(ListeningPoint.TCP)) {
            tls = null;
        } else {
            return nio.createMessageProcessor(stack, address, port, transport);
        }
        return new CappedTcpListener(address, stack, port, TransportProperties.tcpLimits(properties),
                ((AnsweringParserFactory) stack.getMessageParserFactory()).received(), newCalls, tls,
                TransportProperties.captureOf(((SipStackImpl) stack).getStackName()));
    }
}
