package io.trunkgate.sip.jainsip;

import gov.nist.core.Host;
import gov.nist.core.HostPort;
import gov.nist.core.NameValue;
import gov.nist.javax.sip.address.AddressImpl;
import gov.nist.javax.sip.address.SipUri;
import gov.nist.javax.sip.header.AddressParametersHeader;
import gov.nist.javax.sip.header.Contact;
import gov.nist.javax.sip.header.ContactList;
import gov.nist.javax.sip.header.From;
import gov.nist.javax.sip.header.Protocol;
import gov.nist.javax.sip.header.RecordRoute;
import gov.nist.javax.sip.header.RecordRouteList;
import gov.nist.javax.sip.header.Route;
import gov.nist.javax.sip.header.RouteList;
import gov.nist.javax.sip.header.SIPHeader;
import gov.nist.javax.sip.header.SIPHeaderList;
import gov.nist.javax.sip.header.To;
import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.header.ViaList;
import java.util.function.Supplier;

/**
 * Reads the common forms of the address headers (From, To, Contact, Route, Record-Route) and of Via in one pass over
 * the header line, building the objects JAIN-SIP's own parsers build from it: the same classes, made by the same
 * constructors and setters with the same strings. JAIN-SIP's parsers copy the line into a lexer's array, make a
 * token object and a string for each token they look at, and look ahead by building strings; here only the strings
 * the objects keep are made.
 *
 * <p>The forms read: a {@code sip:} or {@code sips:} URI in angle brackets, with a display name of tokens or a
 * quoted string without escapes, or a bare {@code sip:}/{@code sips:} URI; a user part, a password, a host name or
 * IPv4 address, a port, URI parameters; header parameters of tokens or quoted strings without escapes; several
 * values separated by commas where JAIN-SIP allows them; a Via's sent-protocol, sent-by and parameters. Anything
 * else (an escape in a quoted string, an IPv6 reference, another URI scheme, URI headers, a Via comment, a
 * character outside ASCII in a URI or a token, a parameter JAIN-SIP would read in another way) makes
 * {@link #read} answer null, and the header goes to JAIN-SIP's parser, which parses it or refuses it as it does.
 */
final class LeanHeaderReader {

    /** The headers read here. */
    enum Kind { VIA, FROM, TO, CONTACT, ROUTE, RECORD_ROUTE }

    /** Thrown where the line leaves the forms read here; carries nothing, costs nothing to throw. */
    private static final class Unsure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unsure() {
            super(null, null, false, false);
        }
    }

    private static final Unsure UNSURE = new Unsure();

    private final String line;
    private int at;

    private LeanHeaderReader(String line, int at) {
        this.line = line;
        this.at = at;
    }

    /**
     * The header JAIN-SIP's parser for {@code kind} makes of {@code line} (a header named {@code nameLength}
     * characters, its value, a line feed), or null when the line is not of a form read here.
     */
    static SIPHeader read(Kind kind, String line, int nameLength) {
        int colon = nameLength;
        while (colon < line.length() && (line.charAt(colon) == ' ' || line.charAt(colon) == '\t')) {
            colon++;
        }
        if (colon >= line.length() || line.charAt(colon) != ':' || line.charAt(line.length() - 1) != '\n') {
            return null;
        }
        LeanHeaderReader reader = new LeanHeaderReader(line, colon + 1);
        try {
            reader.blanks();
            SIPHeader header = switch (kind) {
                case VIA -> reader.vias();
                case FROM -> reader.single(new From());
                case TO -> reader.single(new To());
                case CONTACT -> reader.addresses(new ContactList(), Contact::new);
                case ROUTE -> reader.addresses(new RouteList(), Route::new);
                case RECORD_ROUTE -> reader.addresses(new RecordRouteList(), RecordRoute::new);
            };
            return reader.at == line.length() - 1 ? header : null;
        } catch (Unsure unsure) {
            return null;
        }
    }

    private char peek() {
        return at < line.length() ? line.charAt(at) : '\0';
    }

    private void expect(char c) {
        if (peek() != c) {
            throw UNSURE;
        }
        at++;
    }

    private void blanks() {
        while (peek() == ' ' || peek() == '\t') {
            at++;
        }
    }

    /** After a value of a list: past a comma and the blanks after it, true; at the line feed, false. */
    private boolean another() {
        blanks();
        char c = peek();
        if (c == ',') {
            at++;
            blanks();
            return true;
        }
        if (c != '\n') {
            throw UNSURE;
        }
        return false;
    }

    private <H extends AddressParametersHeader> H single(H header) {
        addressAndParameters(header);
        return header;
    }

    /** One or more addresses separated by commas, each with its parameters, into {@code list}. */
    private <H extends AddressParametersHeader, L extends SIPHeaderList<H>> L addresses(L list, Supplier<H> header) {
        do {
            if (peek() == '*') {
                throw UNSURE; // Contact: *, which JAIN-SIP reads apart; any address starting so is left to it
            }
            list.add(single(header.get()));
        } while (another());
        return list;
    }

    /** JAIN-SIP's AddressParametersParser: an address, then {@code ;}-parameters (ParserCore's nameValue). */
    private void addressAndParameters(AddressParametersHeader header) {
        header.setAddress(address());
        blanks();
        while (peek() == ';') {
            at++;
            blanks();
            header.setParameter(parameter());
            blanks();
        }
        char c = peek();
        if (c != ',' && c != '\n') {
            throw UNSURE;
        }
    }

    /** ParserCore's {@code nameValue('=')}: a token, and a token or quoted value, or a flag. */
    private NameValue parameter() {
        String name = token();
        blanks();
        if (peek() != '=') {
            return new NameValue(name, "", true);
        }
        at++;
        blanks();
        if (peek() == '"') {
            NameValue quoted = new NameValue(name, quoted(), false);
            quoted.setQuotedValue();
            return quoted;
        }
        return new NameValue(name, token(), false);
    }

    /** AddressParser's {@code address(false)} on the forms read here. */
    private AddressImpl address() {
        if (line.startsWith("sip:", at) || line.startsWith("sips:", at)) {
            AddressImpl spec = new AddressImpl();
            spec.setAddressType(AddressImpl.ADDRESS_SPEC);
            spec.setURI(sipUri(false));
            return spec;
        }
        String displayName = null;
        char c = peek();
        if (c == '"') {
            displayName = quoted();
            blanks();
        } else if (c != '<') {
            int start = at;
            while (tokenChar(peek()) || peek() == ' ' || peek() == '\t') {
                at++;
            }
            displayName = line.substring(start, at);
        }
        expect('<');
        blanks();
        SipUri uri = sipUri(true);
        blanks();
        expect('>');
        AddressImpl address = new AddressImpl();
        address.setAddressType(AddressImpl.NAME_ADDR);
        if (displayName != null) {
            address.setDisplayName(displayName.trim());
        }
        address.setURI(uri);
        return address;
    }

    /** URLParser's {@code sipURL(inBrackets)}: URI parameters only in brackets, no URI headers. */
    private SipUri sipUri(boolean inBrackets) {
        SipUri uri = new SipUri();
        if (line.startsWith("sip:", at)) {
            uri.setScheme("sip");
            at += 4;
        } else if (line.startsWith("sips:", at)) {
            uri.setScheme("sips");
            at += 5;
        } else {
            throw UNSURE;
        }
        int user = at;
        int userEnd = skip(user, USER);
        int passwordEnd = userEnd;
        if (charAt(userEnd) == ':') {
            passwordEnd = skip(userEnd + 1, PASSWORD);
        }
        if (charAt(passwordEnd) == '@') {
            uri.setUser(line.substring(user, userEnd));
            if (passwordEnd != userEnd) {
                uri.setUserPassword(line.substring(userEnd + 1, passwordEnd));
            }
            at = passwordEnd + 1;
        }
        HostPort hostPort = new HostPort();
        hostPort.setHost(host());
        if (peek() == ':') {
            at++;
            hostPort.setPort(port());
        }
        char c = peek();
        if (c != ';' && c != '>' && c != ',' && c != '\n' && c != ' ' && c != '\t') {
            throw UNSURE;
        }
        uri.setHostPort(hostPort);
        while (inBrackets && peek() == ';') {
            at++;
            int nameEnd = skip(at, PARAMETER);
            String name = line.substring(at, nameEnd);
            at = nameEnd;
            if (name.isEmpty()) {
                throw UNSURE;
            }
            if (peek() == '=') {
                int valueEnd = skip(at + 1, PARAMETER);
                uri.setUriParameter(new NameValue(name, line.substring(at + 1, valueEnd), false));
                at = valueEnd;
            } else {
                uri.setUriParameter(new NameValue(name, "", true));
            }
        }
        if (peek() == '?') {
            throw UNSURE;
        }
        return uri;
    }

    /** HostNameParser's {@code host()} for a host name or IPv4 address (not an IPv6 one, bracketed or bare). */
    private Host host() {
        if (peek() == '[' || bareIpv6()) {
            throw UNSURE;
        }
        int start = at;
        char c = peek();
        while (c < 0x80 && (Character.isLetterOrDigit(c) || c == '-' || c == '.' || c == '_')) {
            at++;
            c = peek();
        }
        if (at == start) {
            throw UNSURE;
        }
        return new Host(line.substring(start, at));
    }

    /**
     * Whether HostNameParser takes what follows for a bare IPv6 address: two colons in the rest of the line up to
     * its first comma, then up to the first {@code ?} before any {@code ;} (or the first {@code ;}).
     */
    private boolean bareIpv6() {
        int end = line.indexOf(',', at);
        if (end < 0) {
            end = line.length();
        }
        int question = indexOf('?', at, end);
        int semicolon = indexOf(';', at, end);
        int hostEnd = question;
        if (hostEnd < 0 || (semicolon >= 0 && hostEnd > semicolon)) {
            hostEnd = semicolon;
        }
        if (hostEnd < 0) {
            hostEnd = end;
        }
        int colons = 0;
        for (int i = at; i < hostEnd; i++) {
            if (line.charAt(i) == ':' && ++colons == 2) {
                return true;
            }
        }
        return false;
    }

    private int indexOf(char c, int from, int end) {
        for (int i = from; i < end; i++) {
            if (line.charAt(i) == c) {
                return i;
            }
        }
        return -1;
    }

    /** The digits of a port, as LexerCore's {@code number()} and {@code Integer.parseInt} read them. */
    private int port() {
        int start = at;
        int port = 0;
        while (peek() >= '0' && peek() <= '9') {
            port = port * 10 + (peek() - '0');
            at++;
        }
        if (at == start || at - start > 9) {
            throw UNSURE;
        }
        return port;
    }

    /** ViaParser's {@code parse()}: Vias separated by commas. */
    private ViaList vias() {
        ViaList list = new ViaList();
        do {
            list.add(via());
            blanks();
            if (peek() == ',') {
                at++;
                blanks();
                if (peek() == '\n') {
                    break;
                }
            } else if (peek() == '\n') {
                break;
            } else {
                throw UNSURE;
            }
        } while (true);
        return list;
    }

    /** ViaParser's {@code parseVia}: sent-protocol, sent-by, parameters (its own nameValue); no comment. */
    private Via via() {
        Via via = new Via();
        String name = token();
        blanks();
        expect('/');
        blanks();
        String version = token();
        blanks();
        expect('/');
        blanks();
        String transport = token();
        blanks();
        Protocol protocol = new Protocol();
        protocol.setProtocolName(name);
        protocol.setProtocolVersion(version);
        protocol.setTransport(transport);
        via.setSentProtocol(protocol);
        HostPort sentBy = new HostPort();
        sentBy.setHost(host());
        blanks();
        if (peek() == ':') {
            at++;
            blanks();
            sentBy.setPort(port());
        }
        via.setSentBy(sentBy);
        blanks();
        while (peek() == ';') {
            at++;
            blanks();
            via.setParameter(viaParameter());
            blanks();
        }
        return via;
    }

    /** ViaParser's {@code nameValue()}: the name in lower case; {@code received} up to a {@code ;} or comma. */
    private NameValue viaParameter() {
        String name = token();
        // in the default locale, as ViaParser lower-cases it
        String lowerName = name.toLowerCase();
        blanks();
        if (peek() != '=') {
            if (lowerName.equals("branch")) {
                throw UNSURE;
            }
            return new NameValue(lowerName, null);
        }
        at++;
        blanks();
        if (name.equalsIgnoreCase("received")) {
            int start = at;
            char c = peek();
            while (c != '\0' && c != '\n' && c != ';' && c != ',') {
                if (c >= 0x80 || c < ' ') {
                    throw UNSURE;
                }
                at++;
                c = peek();
            }
            return new NameValue(lowerName, line.substring(start, at));
        }
        if (peek() == '"') {
            NameValue quoted = new NameValue(lowerName, quoted());
            quoted.setQuotedValue();
            return quoted;
        }
        return new NameValue(lowerName, token());
    }

    /** LexerCore's {@code ttoken()} where at least one token character is there. */
    private String token() {
        int start = at;
        while (tokenChar(peek())) {
            at++;
        }
        if (at == start) {
            throw UNSURE;
        }
        return line.substring(start, at);
    }

    /** LexerCore's {@code quotedString()} for one without escapes: what is between the quotes. */
    private String quoted() {
        expect('"');
        int start = at;
        char c = peek();
        while (c != '"') {
            if (c == '\\' || c == '\n' || c == '\0' || (c < ' ' && c != '\t')) {
                throw UNSURE;
            }
            at++;
            c = peek();
        }
        at++;
        return line.substring(start, at - 1);
    }

    private char charAt(int i) {
        return i < line.length() ? line.charAt(i) : '\0';
    }

    /**
     * Whether the display name of the address header {@code line} (name, colon, value) is well-formed as RFC 3261
     * §25.1 has it: tokens and blanks, or a quoted string ({@code Bell, Alexander <sip:...>} is neither, RFC 4475
     * §3.1.2.16). JAIN-SIP's parser takes any text before the {@code <}; an address without {@code <} has none.
     */
    static boolean displayNameWellFormed(String line) {
        int colon = line.indexOf(':');
        int open = line.indexOf('<', colon + 1);
        if (colon < 0 || open < 0) {
            return true;
        }
        String name = line.substring(colon + 1, open).trim();
        if (name.startsWith("\"")) {
            return true; // a quoted string: JAIN-SIP's parser checks it
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!tokenChar(c) && c != ' ' && c != '\t') {
                return false;
            }
        }
        return true;
    }

    /** LexerCore's {@code isTokenChar}, for ASCII. */
    private static boolean tokenChar(char c) {
        return c < 0x80 && (Character.isLetterOrDigit(c) || "-.!%*_+`'~".indexOf(c) >= 0);
    }

    private static final int USER = 0;
    private static final int PASSWORD = 1;
    private static final int PARAMETER = 2;

    /**
     * Past the characters URLParser's {@code user()}, {@code password()} or {@code paramNameOrValue()} take from
     * {@code from}: unreserved ones, {@code %} and two hex digits, and each one's own reserved ones.
     */
    private int skip(int from, int kind) {
        int i = from;
        while (true) {
            char c = charAt(i);
            if (c < 0x80 && (Character.isLetterOrDigit(c) || "-_.!~*'()".indexOf(c) >= 0
                    || (kind == USER ? "&?+$#/,;=" : kind == PASSWORD ? "&=+$," : "[]/:&+$").indexOf(c) >= 0)) {
                i++;
            } else if (c == '%' && hex(charAt(i + 1)) && hex(charAt(i + 2))) {
                i += 3;
            } else {
                return i;
            }
        }
    }

    private static boolean hex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
}
