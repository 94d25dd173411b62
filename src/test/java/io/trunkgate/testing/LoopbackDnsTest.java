package io.trunkgate.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/** The tests' DNS server answers as an authoritative server does, over UDP and over TCP. */
class LoopbackDnsTest {

    private static final String D = LoopbackDns.DOMAIN;

    private static Message ask(LoopbackDns dns, boolean tcp, String name, int type) throws Exception {
        SimpleResolver resolver = new SimpleResolver(dns.address());
        resolver.setTCP(tcp);
        resolver.setTimeout(Duration.ofSeconds(5));
        return resolver.send(Message.newQuery(Record.newRecord(Name.fromString(name + "."), type, DClass.IN)));
    }

    private static List<String> answers(Message reply) {
        return reply.getSection(Section.ANSWER).stream().map(Record::rdataToString).toList();
    }

    @Test
    void answersFromTheZoneOverUdpAndOverTcp() throws Exception {
        try (LoopbackDns dns = LoopbackDns.start(30, LoopbackDns.host("a." + D, "127.0.0.9"),
                LoopbackDns.host("a." + D, "::1"), LoopbackDns.srv("_sip._udp.a." + D, "a." + D, 5070, 10, 20),
                LoopbackDns.naptr("a." + D, 10, 5, "s", "SIP+D2U", "", "_sip._udp.a." + D))) {
            for (boolean tcp : List.of(false, true)) {
                Message a = ask(dns, tcp, "a." + D, Type.A);
                assertEquals(Rcode.NOERROR, a.getRcode());
                assertTrue(a.getHeader().getFlag(Flags.AA), "authoritative");
                assertEquals(List.of("127.0.0.9"), answers(a));
                assertEquals(30, a.getSection(Section.ANSWER).get(0).getTTL());
                assertEquals(List.of("0:0:0:0:0:0:0:1"), answers(ask(dns, tcp, "a." + D, Type.AAAA)));
                assertEquals(List.of("10 20 5070 a.trunkgate.test."), answers(ask(dns, tcp, "_sip._udp.a." + D, Type.SRV)));
                assertEquals(List.of("10 5 \"s\" \"SIP+D2U\" \"\" _sip._udp.a.trunkgate.test."),
                        answers(ask(dns, tcp, "a." + D, Type.NAPTR)));

                Message noData = ask(dns, tcp, "a." + D, Type.MX);
                assertEquals(Rcode.NOERROR, noData.getRcode(), "the name exists, with no record of that type");
                assertEquals(List.of(), answers(noData));
                assertEquals(Type.SOA, noData.getSection(Section.AUTHORITY).get(0).getType());
                Message noName = ask(dns, tcp, "nobody." + D, Type.A);
                assertEquals(Rcode.NXDOMAIN, noName.getRcode());
                assertEquals(Type.SOA, noName.getSection(Section.AUTHORITY).get(0).getType());
                assertEquals(Rcode.REFUSED, ask(dns, tcp, "example.org", Type.A).getRcode(), "not its zone");
            }
        }
    }

    @Test
    void anAnswerTooLargeForADatagramIsMarkedTruncatedAndComesWholeOverTcp() throws Exception {
        List<LoopbackDns.Entry> many = new ArrayList<>();
        for (int i = 1; i <= 200; i++) {
            many.add(LoopbackDns.host("many." + D, "127.0." + (i / 250) + "." + (i % 250 + 1)));
        }
        try (LoopbackDns dns = LoopbackDns.start(30, many.toArray(new LoopbackDns.Entry[0]))) {
            SimpleResolver udpOnly = new SimpleResolver(dns.address());
            udpOnly.setIgnoreTruncation(true);
            Message cut = udpOnly.send(Message.newQuery(Record.newRecord(Name.fromString("many." + D + "."), Type.A,
                    DClass.IN)));
            assertTrue(cut.getHeader().getFlag(Flags.TC), "truncated");
            assertTrue(answers(cut).size() < 200, answers(cut).size() + " records in one datagram");

            Message whole = ask(dns, false, "many." + D, Type.A); // the resolver asks again over TCP
            assertFalse(whole.getHeader().getFlag(Flags.TC));
            assertEquals(200, answers(whole).size());
        }
    }
}
