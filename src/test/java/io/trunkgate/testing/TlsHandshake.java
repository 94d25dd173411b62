package io.trunkgate.testing;

import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/** Runs a real TLS handshake between a client and a server SSLEngine in memory, in the calling thread. */
public final class TlsHandshake {

    private static final int MAX_ROUNDS = 200;

    private TlsHandshake() {
    }

    /**
     * Hands each engine's records to the other until both finished the handshake.
     *
     * @throws SSLException the first side's failure: a certificate refused, no common cipher suite, ...
     */
    public static void handshake(SSLEngine client, SSLEngine server) throws SSLException {
        client.setUseClientMode(true);
        server.setUseClientMode(false);
        ByteBuffer clientToServer = ByteBuffer.allocate(client.getSession().getPacketBufferSize() * 4);
        ByteBuffer serverToClient = ByteBuffer.allocate(server.getSession().getPacketBufferSize() * 4);
        ByteBuffer clientApp = ByteBuffer.allocate(client.getSession().getApplicationBufferSize() * 2);
        ByteBuffer serverApp = ByteBuffer.allocate(server.getSession().getApplicationBufferSize() * 2);
        client.beginHandshake();
        server.beginHandshake();
        for (int round = 0; round < MAX_ROUNDS; round++) {
            boolean moved = step(client, clientToServer, serverToClient, clientApp);
            moved |= step(server, serverToClient, clientToServer, serverApp);
            if (idle(client) && idle(server) && clientToServer.position() == 0 && serverToClient.position() == 0) {
                return;
            }
            if (!moved) {
                throw new IllegalStateException("the handshake is stuck: client " + client.getHandshakeStatus()
                        + ", server " + server.getHandshakeStatus());
            }
        }
        throw new IllegalStateException("no end to the handshake after " + MAX_ROUNDS + " rounds");
    }

    private static boolean step(SSLEngine engine, ByteBuffer out, ByteBuffer in, ByteBuffer app) throws SSLException {
        boolean moved = false;
        SSLEngineResult wrapped = engine.wrap(ByteBuffer.allocate(0), out);
        runTasks(engine);
        moved |= wrapped.bytesProduced() > 0;
        in.flip();
        try {
            SSLEngineResult unwrapped = engine.unwrap(in, app);
            moved |= unwrapped.bytesConsumed() > 0;
        } finally {
            in.compact();
        }
        app.clear();
        moved |= runTasks(engine);
        return moved;
    }

    private static boolean runTasks(SSLEngine engine) {
        boolean ran = false;
        for (Runnable task = engine.getDelegatedTask(); task != null; task = engine.getDelegatedTask()) {
            task.run();
            ran = true;
        }
        return ran;
    }

    private static boolean idle(SSLEngine engine) {
        SSLEngineResult.HandshakeStatus status = engine.getHandshakeStatus();
        return status == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING
                || status == SSLEngineResult.HandshakeStatus.FINISHED;
    }
}
