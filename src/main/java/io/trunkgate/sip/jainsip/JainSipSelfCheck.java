package io.trunkgate.sip.jainsip;

import gov.nist.javax.sip.SipStackImpl;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import gov.nist.javax.sip.parser.ParseExceptionListener;
import gov.nist.javax.sip.parser.StringMsgParser;
import gov.nist.javax.sip.stack.ConnectionOrientedMessageChannel;
import gov.nist.javax.sip.stack.MessageChannel;
import gov.nist.javax.sip.stack.NioTcpMessageChannel;
import gov.nist.javax.sip.stack.NioTcpMessageProcessor;
import gov.nist.javax.sip.stack.SIPStackTimerTask;
import gov.nist.javax.sip.stack.UDPMessageProcessor;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.Queue;
import java.util.stream.Stream;

/**
 * Checks, before the stack is built, that the JAIN-SIP on the class path is the one this package's workarounds
 * target: its version, the private members {@link StackInternals} reflects on, the methods the listeners and
 * connections here override (a JAIN-SIP that renamed one would silently stop calling the override), and the timer
 * task classes {@link CoarseSipTimer} recognises by name. The gateway does not start on another: one message
 * names everything missing and points to docs/jain-sip.md, which says what each is for.
 */
final class JainSipSelfCheck {

    /** The jain-sip-ri version the workarounds of this package were written against (pom.xml's jain-sip.version). */
    static final String TARGET_VERSION = "1.3.0-91";
    static final String DOCUMENT = "docs/jain-sip.md";
    /** Where jain-sip-ri's jar says its version: kept in the gateway's fat jar, whose manifest is its own. */
    private static final String POM_PROPERTIES = "META-INF/maven/javax.sip/jain-sip-ri/pom.properties";

    /** The methods overridden here whose signature JAIN-SIP must keep for the override to be called. */
    static final List<ReflectedMember> OVERRIDDEN = List.of(
            ReflectedMember.method(UDPMessageProcessor.class, "run", void.class),
            ReflectedMember.method(NioTcpMessageProcessor.class, "createMessageChannel", NioTcpMessageChannel.class,
                    NioTcpMessageProcessor.class, SocketChannel.class),
            ReflectedMember.method(NioTcpMessageProcessor.class, "connect", SocketChannel.class,
                    InetSocketAddress.class, InetAddress.class, int.class),
            ReflectedMember.method(NioTcpMessageChannel.class, "addBytes", void.class, byte[].class),
            ReflectedMember.method(NioTcpMessageChannel.class, "close", void.class, boolean.class, boolean.class),
            ReflectedMember.method(NioTcpMessageChannel.class, "sendSingleCLRF", void.class),
            ReflectedMember.method(NioTcpMessageChannel.class, "sendTCPMessage", void.class, byte[].class,
                    InetAddress.class, int.class, boolean.class),
            ReflectedMember.method(NioTcpMessageChannel.class, "sendMessage", void.class, byte[].class,
                    boolean.class),
            ReflectedMember.method(NioTcpMessageChannel.class, "sendMessage", void.class, byte[].class,
                    InetAddress.class, int.class, boolean.class),
            ReflectedMember.method(MessageChannel.class, "sendMessage", void.class, SIPMessage.class,
                    javax.sip.address.Hop.class),
            ReflectedMember.method(MessageChannel.class, "sendMessage", void.class, SIPMessage.class,
                    InetAddress.class, int.class),
            ReflectedMember.method(ConnectionOrientedMessageChannel.class, "sendMessage", void.class,
                    SIPMessage.class),
            ReflectedMember.method(NioTcpMessageChannel.class, "getTransport", String.class),
            ReflectedMember.method(NioTcpMessageChannel.class, "triggerConnectFailure", void.class, Queue.class),
            ReflectedMember.method(StringMsgParser.class, "parseSIPMessage", SIPMessage.class, byte[].class,
                    boolean.class, boolean.class, ParseExceptionListener.class),
            ReflectedMember.method(StringMsgParser.class, "processFirstLine", SIPMessage.class, String.class,
                    ParseExceptionListener.class, byte[].class),
            ReflectedMember.method(SIPRequest.class, "encodeAsBytes", byte[].class, String.class),
            ReflectedMember.method(SIPResponse.class, "encodeAsBytes", byte[].class, String.class));

    private JainSipSelfCheck() {
    }

    /** Throws, naming what is missing, unless the JAIN-SIP on the class path is the one targeted here. */
    static void verify() {
        List<String> missing = missing(TARGET_VERSION,
                Stream.concat(StackInternals.REFLECTED.stream(), OVERRIDDEN.stream()).toList(),
                CoarseSipTimer.RECOGNISED_TASKS);
        if (!missing.isEmpty()) {
            throw new IllegalStateException(message(missing));
        }
    }

    /** What of {@code version}, {@code members} and {@code timerTasks} the JAIN-SIP on the class path lacks. */
    static List<String> missing(String version, List<ReflectedMember> members, List<String> timerTasks) {
        List<String> missing = new ArrayList<>();
        String found = jainSipVersion();
        if (!Objects.equals(version, found)) {
            missing.add("jain-sip-ri version " + version + " (found " + (found == null ? "no " + POM_PROPERTIES
                    : found) + ")");
        }
        for (ReflectedMember member : members) {
            if (!member.present()) {
                missing.add(member.toString());
            }
        }
        for (String task : timerTasks) {
            if (!isTimerTask(task)) {
                missing.add("timer task class " + task + " (CoarseSipTimer recognises it by name)");
            }
        }
        return missing;
    }

    static String message(List<String> missing) {
        return "the JAIN-SIP on the class path is not the one the gateway's workarounds target (jain-sip-ri "
                + TARGET_VERSION + "); missing: " + String.join("; ", missing) + ". See " + DOCUMENT
                + " for what each is for and what to change on an upgrade.";
    }

    /** The version of the jain-sip-ri jar that holds JAIN-SIP's classes, or null when it does not say. */
    private static String jainSipVersion() {
        try (InputStream in = SipStackImpl.class.getClassLoader().getResourceAsStream(POM_PROPERTIES)) {
            if (in == null) {
                return null;
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            return null;
        }
    }

    private static boolean isTimerTask(String name) {
        try {
            return SIPStackTimerTask.class.isAssignableFrom(
                    Class.forName(name, false, SIPStackTimerTask.class.getClassLoader()));
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
