package io.trunkgate.sip.jainsip;

import gov.nist.javax.sip.ClientTransactionExt;
import gov.nist.javax.sip.SipStackImpl;
import gov.nist.javax.sip.stack.NioTcpMessageProcessor;
import gov.nist.javax.sip.stack.NioTlsChannelInterface;
import gov.nist.javax.sip.stack.SSLStateMachine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Queue;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLSession;

/**
 * The TLS of one connection: JAIN-SIP's {@link SSLStateMachine} (the record buffering, handshake steps and queueing
 * of messages until the handshake is done that its own TLS channel uses) over an engine this package made, so that
 * a TLS connection is a {@link FramedTcpConnection} with the caps, timeouts and framing of TCP. It remembers the
 * client transactions whose requests wait for the handshake: if the handshake fails they are answered as JAIN-SIP
 * answers a failed connect, with a 503 each.
 *
 * <p>A TLS 1.2 renegotiation (a handshake record once the handshake is done) is refused: the record never reaches
 * the engine, the connection gets a close_notify alert and is closed. Renegotiating gains a caller nothing the
 * first handshake did not give, and costs the gateway a handshake each time it is asked (a well-known flood).
 */
final class TlsLayer implements NioTlsChannelInterface {

    /** The connection under the TLS: where records go and plaintext comes out. */
    interface Connection {
        void sendRecords(byte[] records) throws IOException;

        /** Writes records at once, as the last before the connection closes (an alert). */
        void sendLastRecords(byte[] records) throws IOException;

        void plaintext(byte[] bytes) throws Exception;

        SipStackImpl stack();
    }

    private static final String NO_CIPHER_YET = "SSL_NULL_WITH_NULL_NULL";

    private final SSLEngine engine;
    private final SSLStateMachine machine;
    private final Connection connection;
    private final Queue<String> waitingTransactions = new ArrayDeque<>();
    private volatile boolean established;
    /** Where the records read are: the bytes of a record header read so far, or those of a record's body left. */
    private final byte[] recordHeader = new byte[RECORD_HEADER_BYTES];
    private int recordHeaderRead;
    private int recordBodyLeft;
    private static final int RECORD_HEADER_BYTES = 5;
    private static final int HANDSHAKE_RECORD = 22;

    TlsLayer(SSLEngine engine, Connection connection) {
        this.engine = engine;
        this.connection = connection;
        this.machine = new SSLStateMachine(engine, this);
    }

    /** Records read from the socket: plaintext goes to the connection, handshake replies go out. */
    void received(byte[] records) throws Exception {
        if (renegotiation(records)) {
            refuseRenegotiation();
            throw new SSLException("TLS renegotiation refused");
        }
        machine.unwrap(ByteBuffer.wrap(records));
        checkEstablished();
    }

    /**
     * Follows the record boundaries through {@code records}: whether one of them starts a handshake record after
     * the handshake is done under TLS 1.2 or older (TLS 1.3 has no renegotiation, and sends its own handshake
     * messages in records of application data).
     */
    private boolean renegotiation(byte[] records) {
        boolean renegotiating = false;
        int at = 0;
        while (at < records.length) {
            if (recordBodyLeft > 0) {
                int skipped = Math.min(recordBodyLeft, records.length - at);
                recordBodyLeft -= skipped;
                at += skipped;
                continue;
            }
            recordHeader[recordHeaderRead++] = records[at++];
            if (recordHeaderRead == RECORD_HEADER_BYTES) {
                recordHeaderRead = 0;
                recordBodyLeft = ((recordHeader[3] & 0xff) << 8) | (recordHeader[4] & 0xff);
                renegotiating |= recordHeader[0] == HANDSHAKE_RECORD && established
                        && !"TLSv1.3".equals(engine.getSession().getProtocol());
            }
        }
        return renegotiating;
    }

    /** Sends the engine's close_notify alert: what it can say to a renegotiation it is not shown. */
    private void refuseRenegotiation() throws IOException {
        engine.closeOutbound();
        ByteBuffer out = prepareEncryptedDataBuffer();
        for (int round = 0; round < 4 && !engine.isOutboundDone(); round++) {
            engine.wrap(ByteBuffer.allocate(0), out);
        }
        out.flip();
        byte[] alert = new byte[out.remaining()];
        out.get(alert);
        connection.sendLastRecords(alert);
    }

    /** Called as records are read: the handshake is done once the engine has a session and nothing left to do. */
    private void checkEstablished() {
        if (!established && engine.getHandshakeStatus() == HandshakeStatus.NOT_HANDSHAKING
                && !NO_CIPHER_YET.equals(engine.getSession().getCipherSuite())) {
            established = true;
            synchronized (waitingTransactions) {
                waitingTransactions.clear();
            }
        }
    }

    /**
     * Encrypts {@code plaintext} and hands the records to {@code out}, now or once the handshake is done;
     * {@code transactionId} is the client transaction that sent it, if any, answered with a 503 should the
     * handshake fail.
     */
    void send(byte[] plaintext, String transactionId, SSLStateMachine.MessageSendCallback out) throws IOException {
        if (!established && transactionId != null) {
            synchronized (waitingTransactions) {
                waitingTransactions.add(transactionId);
            }
        }
        machine.wrap(ByteBuffer.wrap(plaintext), prepareEncryptedDataBuffer(), out);
    }

    boolean established() {
        return established;
    }

    /** The session, once the handshake is done; else null. */
    SSLSession session() {
        return established ? engine.getSession() : null;
    }

    SSLEngine engine() {
        return engine;
    }

    /** The client transactions whose requests never left because the handshake failed, as JAIN-SIP queues them. */
    Queue<NioTcpMessageProcessor.PendingData> unsent() {
        Queue<NioTcpMessageProcessor.PendingData> unsent = new ArrayDeque<>();
        synchronized (waitingTransactions) {
            for (String id : waitingTransactions) {
                unsent.add(new NioTcpMessageProcessor.PendingData(id, ByteBuffer.allocate(0)));
            }
            waitingTransactions.clear();
        }
        return unsent;
    }

    @Override
    public void sendEncryptedData(byte[] records) throws IOException {
        connection.sendRecords(records);
    }

    @Override
    public ByteBuffer prepareAppDataBuffer() {
        return ByteBuffer.allocate(engine.getSession().getApplicationBufferSize());
    }

    @Override
    public ByteBuffer prepareAppDataBuffer(int capacity) {
        return ByteBuffer.allocate(capacity);
    }

    @Override
    public ByteBuffer prepareEncryptedDataBuffer() {
        return ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
    }

    @Override
    public void addPlaintextBytes(byte[] bytes) throws Exception {
        // plaintext may come in the read that finished the handshake: the session is there for its messages
        checkEstablished();
        connection.plaintext(bytes);
    }

    @Override
    public SipStackImpl getSIPStack() {
        return connection.stack();
    }

    /** Asked by the state machine only for a JAIN-SIP TLS channel's security policy, which does not apply here. */
    @Override
    public ClientTransactionExt getEncapsulatedClientTransaction() {
        return null;
    }
}
