package io.trunkgate.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One TCP connection to an HTTP server over a plain socket, from a chosen loopback address: for requests no HTTP
 * client sends (broken header lines, bytes trickled one at a time) and for holding connections open.
 */
public final class RawHttpConnection implements AutoCloseable {

    private final Socket socket;

    private RawHttpConnection(Socket socket) {
        this.socket = socket;
    }

    /** Connects from {@code sourceHost} (e.g. 127.0.0.7, any port) to the server. */
    public static RawHttpConnection open(InetSocketAddress server, String sourceHost) throws IOException {
        Socket socket = new Socket();
        try {
            socket.bind(new InetSocketAddress(sourceHost, 0));
            socket.connect(server, 5000);
            return new RawHttpConnection(socket);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** Sends the text as it is (ISO-8859-1), line ends included. */
    public void send(String text) throws IOException {
        socket.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
    }

    /**
     * Everything the server sends until it closes the connection (a reset after an answer ends it too: a server that
     * closes with request bytes unread resets the connection); fails when that takes longer than {@code within}.
     */
    public String answer(Duration within) throws IOException {
        long deadline = System.nanoTime() + within.toNanos();
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[8192];
        while (true) {
            socket.setSoTimeout(remainingMillis(deadline, within, received));
            int n;
            try {
                n = in.read(buffer);
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the server did not close within " + within + "; received: " + received);
            } catch (SocketException e) {
                if (received.size() == 0) {
                    throw e;
                }
                n = -1;
            }
            if (n < 0) {
                return received.toString(StandardCharsets.ISO_8859_1);
            }
            received.write(buffer, 0, n);
        }
    }

    /** The status code of an answer ("HTTP/1.1 400 Bad Request..." gives 400). */
    public static int status(String answer) {
        if (!answer.startsWith("HTTP/1.1 ")) {
            throw new AssertionError("not an HTTP answer: " + answer);
        }
        return Integer.parseInt(answer.substring(9, 12));
    }

    /**
     * Whether the server closes the connection (end of stream or reset) within {@code wait}, having sent nothing;
     * false when it is still open after that.
     */
    public boolean closedWithin(Duration wait) throws IOException {
        socket.setSoTimeout(Math.max(1, (int) wait.toMillis()));
        int read;
        try {
            read = socket.getInputStream().read();
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true;
        }
        if (read >= 0) {
            throw new AssertionError("expected the connection to be closed, but the server answered: "
                    + (char) read + answer(Duration.ofSeconds(5)));
        }
        return true;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    private static int remainingMillis(long deadline, Duration within, ByteArrayOutputStream received) {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
            throw new AssertionError("the server did not close within " + within + "; received: " + received);
        }
        return (int) left;
    }
}
