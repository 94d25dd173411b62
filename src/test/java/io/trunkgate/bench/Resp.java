package io.trunkgate.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal blocking RESP2 connection for the benchmarks' side work (FLUSHALL, SCRIPT LOAD, INFO,
 * MEMORY USAGE ... SAMPLES 0, bulk HSET). Not used on the measured path: that goes through Redisson.
 */
final class Resp implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    Resp(int port) {
        try {
            socket = new Socket("127.0.0.1", port);
            in = new BufferedInputStream(socket.getInputStream());
            out = new BufferedOutputStream(socket.getOutputStream());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends one command and returns its reply: Long, String, List, or null; an error reply throws. */
    Object call(Object... args) {
        send(args);
        flush();
        return read();
    }

    /** Queues a command without flushing or reading (pipelining); read the replies with {@link #read()}. */
    void send(Object... args) {
        try {
            out.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (Object arg : args) {
                byte[] b = String.valueOf(arg).getBytes(StandardCharsets.UTF_8);
                out.write(("$" + b.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(b);
                out.write('\r');
                out.write('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void flush() {
        try {
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Object read() {
        try {
            int type = in.read();
            String line = line();
            switch (type) {
                case '+':
                    return line;
                case '-':
                    throw new IllegalStateException("redis error: " + line);
                case ':':
                    return Long.parseLong(line);
                case '$': {
                    int n = Integer.parseInt(line);
                    if (n < 0) {
                        return null;
                    }
                    byte[] b = in.readNBytes(n + 2);
                    return new String(b, 0, n, StandardCharsets.UTF_8);
                }
                case '*': {
                    int n = Integer.parseInt(line);
                    if (n < 0) {
                        return null;
                    }
                    List<Object> items = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        items.add(read());
                    }
                    return items;
                }
                default:
                    throw new IllegalStateException("unexpected RESP type " + type);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            buf.write(c);
        }
        in.read();
        return buf.toString(StandardCharsets.UTF_8);
    }

    /** One field of INFO (e.g. "used_memory"). */
    String info(String section, String field) {
        for (String l : ((String) call("INFO", section)).split("\r\n")) {
            if (l.startsWith(field + ":")) {
                return l.substring(field.length() + 1);
            }
        }
        throw new IllegalStateException("INFO " + section + " has no " + field);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
