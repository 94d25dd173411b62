package io.trunkgate.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A host that is no party to any call: UDP and TCP on one loopback address and port, counting every datagram
 * and every byte-carrying connection that reaches it. Tests aim attacks at it and assert it got nothing.
 */
public final class ThirdHost implements AutoCloseable {

    private final DatagramSocket udp;
    private final ServerSocket tcp;
    private final AtomicInteger received = new AtomicInteger();

    private ThirdHost(DatagramSocket udp, ServerSocket tcp) {
        this.udp = udp;
        this.tcp = tcp;
    }

    public static ThirdHost start(String host) throws IOException {
        InetAddress address = InetAddress.getByName(host);
        ServerSocket tcp = new ServerSocket();
        tcp.bind(new InetSocketAddress(address, 0));
        DatagramSocket udp = new DatagramSocket(new InetSocketAddress(address, tcp.getLocalPort()));
        ThirdHost third = new ThirdHost(udp, tcp);
        Thread datagrams = new Thread(third::receiveDatagrams, "third-host-udp");
        Thread connections = new Thread(third::acceptConnections, "third-host-tcp");
        datagrams.setDaemon(true);
        connections.setDaemon(true);
        datagrams.start();
        connections.start();
        return third;
    }

    /** host:port, as a SIP URI writes it. */
    public String address() {
        return tcp.getInetAddress().getHostAddress() + ":" + tcp.getLocalPort();
    }

    public int port() {
        return tcp.getLocalPort();
    }

    /** Datagrams plus TCP connections that delivered at least one byte. */
    public int received() {
        return received.get();
    }

    private void receiveDatagrams() {
        byte[] buffer = new byte[65535];
        while (!udp.isClosed()) {
            try {
                udp.receive(new DatagramPacket(buffer, buffer.length));
                received.incrementAndGet();
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void acceptConnections() {
        while (!tcp.isClosed()) {
            try {
                Socket connection = tcp.accept();
                Thread reader = new Thread(() -> readOne(connection), "third-host-conn");
                reader.setDaemon(true);
                reader.start();
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void readOne(Socket connection) {
        try (connection; InputStream in = connection.getInputStream()) {
            if (in.read() >= 0) {
                received.incrementAndGet();
            }
        } catch (IOException ignored) {
            // a connection that carried nothing
        }
    }

    @Override
    public void close() {
        udp.close();
        try {
            tcp.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
