package io.trunkgate.config;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The capture block of gateway.conf: the Homer collector the SIP messages are copied to. */
final class CaptureReader {

    /** "host:port", "a.b.c.d:port" or "[v6]:port". */
    private static final Pattern ADDRESS =
            Pattern.compile("(?:\\[(?<v6>[0-9A-Fa-f:.]+)]|(?<host>[A-Za-z0-9.-]+)):(?<port>\\d{1,5})");
    private static final long MAX_CAPTURE_ID = 0xFFFF_FFFFL;

    private CaptureReader() {
    }

    static Optional<CaptureSettings> read(ConfigSection file) {
        Field addressField = file.optional("capture.address");
        Optional<HostPort> address = addressField.parsed(CaptureReader::address);
        Field transportField = file.optional("capture.transport");
        CaptureSettings.Transport transport = transportField.choice(CaptureSettings.Transport.class)
                .orElse(CaptureSettings.Transport.UDP);
        Field idField = file.optional("capture.capture-id");
        long captureId = idField.whole(0, MAX_CAPTURE_ID).orElse(CaptureSettings.DEFAULT_CAPTURE_ID);
        Field passwordField = file.optional("capture.password");
        Optional<String> password = passwordField.nonEmptyString();
        Field queueField = file.optional("capture.queue-size");
        int queueSize = queueField.integer(1, 1_000_000).orElse(CaptureSettings.DEFAULT_QUEUE_SIZE);
        if (!addressField.isPresent() && List.of(transportField, idField, passwordField, queueField).stream()
                .anyMatch(Field::isPresent)) {
            addressField.error("required key missing (the collector's \"host:port\"; without it nothing is captured)");
        }
        return address.map(a -> new CaptureSettings(a.host(), a.port(), transport, captureId, password, queueSize));
    }

    private record HostPort(String host, int port) {
    }

    private static HostPort address(String text) {
        Matcher m = ADDRESS.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("must be \"host:port\", e.g. \"homer.example.net:9060\", \"192.0.2.7:9060\""
                    + " or \"[2001:db8::7]:9060\" (got \"" + text + "\")");
        }
        int port = Integer.parseInt(m.group("port"));
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port out of range in \"" + text + "\"");
        }
        return new HostPort(m.group("v6") != null ? m.group("v6") : m.group("host"), port);
    }
}
