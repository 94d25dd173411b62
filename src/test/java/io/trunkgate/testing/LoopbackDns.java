package io.trunkgate.testing;

import io.trunkgate.redis.RedisServerProcess;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.NAPTRRecord;
import org.xbill.DNS.NSRecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.RRset;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.SetResponse;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Zone;

/**
 * A real DNS server for tests, in this JVM: authoritative for {@value #DOMAIN} on 127.0.0.1 at a free port, over
 * UDP and TCP, answering from the records the test gives it ({@link #srv}, {@link #host}, {@link #naptr}) with
 * every record's TTL {@code ttlSeconds}. The zone and the wire format are dnsjava's ({@link Zone},
 * {@link Message}): a CNAME is answered as such (the client follows it), a name without records is NXDOMAIN, a name without records of the asked type is an empty
 * NOERROR answer, both with the zone's SOA; a name outside the zone is REFUSED. Started and stopped by the test.
 */
public final class LoopbackDns implements AutoCloseable {

    public static final String DOMAIN = "trunkgate.test";
    private static final int UDP_PAYLOAD_WITHOUT_EDNS = 512;

    /** A record of the zone, made once the TTL is known. */
    @FunctionalInterface
    public interface Entry extends LongFunction<Record> {
    }

    private final Zone zone;
    private final DatagramSocket udp;
    private final ServerSocket tcp;
    private final List<Thread> threads = new ArrayList<>();
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();

    private LoopbackDns(Zone zone, DatagramSocket udp, ServerSocket tcp) {
        this.zone = zone;
        this.udp = udp;
        this.tcp = tcp;
    }

    /** A server on a free port. */
    public static LoopbackDns start(int ttlSeconds, Entry... records) throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                return startOn(RedisServerProcess.freePort(), ttlSeconds, records);
            } catch (SocketException taken) {
                if (attempt == 5) {
                    throw taken;
                }
            }
        }
    }

    /** A server on {@code port} (where another one ran before, say); fails if the port is taken. */
    public static LoopbackDns startOn(int port, int ttlSeconds, Entry... records) throws IOException {
        Name origin = name(DOMAIN);
        Name nameServer = name("ns." + DOMAIN);
        List<Record> all = new ArrayList<>();
        all.add(new SOARecord(origin, DClass.IN, ttlSeconds, nameServer, name("hostmaster." + DOMAIN), 1,
                3600, 600, 86400, ttlSeconds));
        all.add(new NSRecord(origin, DClass.IN, ttlSeconds, nameServer));
        for (Entry record : records) {
            all.add(record.apply(ttlSeconds));
        }
        Zone zone = new Zone(origin, all.toArray(new Record[0]));
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        DatagramSocket udp = new DatagramSocket(null);
        ServerSocket tcp = new ServerSocket();
        try {
            udp.setReuseAddress(true);
            udp.bind(address);
            tcp.setReuseAddress(true);
            tcp.bind(address);
        } catch (IOException e) {
            udp.close();
            tcp.close();
            throw e;
        }
        LoopbackDns server = new LoopbackDns(zone, udp, tcp);
        server.spawn("dns-udp-" + port, server::serveUdp);
        server.spawn("dns-tcp-" + port, server::serveTcp);
        return server;
    }

    /** SRV {@code name} -> {@code target}:{@code port}, as dnsmasq's --srv-host=name,target,port,priority,weight. */
    public static Entry srv(String name, String target, int port, int priority, int weight) {
        Name owner = name(name);
        Name to = name(target);
        return ttl -> new SRVRecord(owner, DClass.IN, ttl, priority, weight, port, to);
    }

    /** An A record, or AAAA for an IPv6 address; a name may have several. */
    public static Entry host(String name, String ip) {
        Name owner = name(name);
        InetAddress address = address(ip);
        return ttl -> address instanceof Inet4Address ? new ARecord(owner, DClass.IN, ttl, address)
                : new AAAARecord(owner, DClass.IN, ttl, address);
    }

    /** NAPTR {@code name}, e.g. {@code naptr("x.trunkgate.test", 10, 10, "s", "SIP+D2T", "", "_sip._tcp.x...")}. */
    public static Entry naptr(String name, int order, int preference, String flags, String service, String regexp,
                              String replacement) {
        Name owner = name(name);
        Name to = name(replacement);
        return ttl -> new NAPTRRecord(owner, DClass.IN, ttl, order, preference, flags, service, regexp, to);
    }

    public int port() {
        return udp.getLocalPort();
    }

    public InetSocketAddress address() {
        return new InetSocketAddress("127.0.0.1", port());
    }

    @Override
    public void close() {
        udp.close();
        try {
            tcp.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Socket connection : connections) {
            try {
                connection.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        for (Thread thread : threads) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void spawn(String name, Runnable loop) {
        Thread thread = new Thread(loop, name);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
    }

    private void serveUdp() {
        byte[] buffer = new byte[65_535];
        while (!udp.isClosed()) {
            DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
            try {
                udp.receive(packet);
            } catch (IOException closed) {
                return;
            }
            Message query;
            try {
                query = new Message(java.util.Arrays.copyOf(packet.getData(), packet.getLength()));
            } catch (IOException malformed) {
                continue; // not a DNS message: nothing to answer
            }
            // larger answers are cut and marked truncated (TC), and the client asks again over TCP
            int limit = query.getOPT() != null ? Math.max(UDP_PAYLOAD_WITHOUT_EDNS, query.getOPT().getPayloadSize())
                    : UDP_PAYLOAD_WITHOUT_EDNS;
            byte[] reply = answer(query).toWire(limit);
            try {
                udp.send(new DatagramPacket(reply, reply.length, packet.getSocketAddress()));
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void serveTcp() {
        while (!tcp.isClosed()) {
            Socket client;
            try {
                client = tcp.accept();
            } catch (IOException closed) {
                return;
            }
            // a client may keep its connection open for further queries: each is served on its own thread
            connections.add(client);
            Thread thread = new Thread(() -> serveConnection(client), "dns-tcp-client-" + port());
            thread.setDaemon(true);
            thread.start();
        }
    }

    private void serveConnection(Socket client) {
        try (client) {
            DataInputStream in = new DataInputStream(client.getInputStream());
            DataOutputStream out = new DataOutputStream(client.getOutputStream());
            while (true) {
                byte[] query = new byte[in.readUnsignedShort()];
                in.readFully(query);
                byte[] reply = answer(new Message(query)).toWire();
                out.writeShort(reply.length);
                out.write(reply);
                out.flush();
            }
        } catch (EOFException done) {
            // the client closed its end after its queries
        } catch (IOException e) {
            // a client that sent something else, or a connection closed by close()
        } finally {
            connections.remove(client);
        }
    }

    private Message answer(Message query) {
        Message response = new Message(query.getHeader().getID());
        response.getHeader().setFlag(Flags.QR);
        if (query.getHeader().getFlag(Flags.RD)) {
            response.getHeader().setFlag(Flags.RD);
        }
        Record question = query.getQuestion();
        if (question == null || query.getHeader().getOpcode() != Opcode.QUERY) {
            response.getHeader().setRcode(Rcode.NOTIMP);
            return response;
        }
        response.addRecord(question, Section.QUESTION);
        if (!question.getName().subdomain(zone.getOrigin())) {
            response.getHeader().setRcode(Rcode.REFUSED);
            return response;
        }
        response.getHeader().setFlag(Flags.AA);
        SetResponse found = zone.findRecords(question.getName(), question.getType());
        if (found.isSuccessful()) {
            for (RRset set : found.answers()) {
                set.rrs().forEach(r -> response.addRecord(r, Section.ANSWER));
            }
        } else if (found.isCNAME()) {
            response.addRecord(found.getCNAME(), Section.ANSWER); // the client follows it
        } else {
            if (found.isNXDOMAIN()) {
                response.getHeader().setRcode(Rcode.NXDOMAIN);
            }
            response.addRecord(zone.getSOA(), Section.AUTHORITY);
        }
        return response;
    }

    private static Name name(String text) {
        try {
            return Name.fromString(text, Name.root);
        } catch (TextParseException e) {
            throw new IllegalArgumentException("not a DNS name: " + text, e);
        }
    }

    private static InetAddress address(String ip) {
        try {
            return InetAddress.getByName(ip); // a literal: no lookup
        } catch (java.net.UnknownHostException e) {
            throw new UncheckedIOException(e);
        }
    }
}
