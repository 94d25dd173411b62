package io.trunkgate.warmup;

/**
 * The kinds of warm-up call, taken in turn. The JIT compiles the branches a message takes through the parser and
 * the proxy; a branch first taken after start (a display name, a header the warm-up never sent, a carrier's 183,
 * a BYE from the callee) throws compiled code away and compiles it again under real traffic. So the warm-up's
 * calls are written the ways callers and carriers in front of trunks write them, and end the ways calls end.
 */
enum WarmUpShape {
    /** Minimal headers; the carrier rings and answers; the caller hangs up. */
    PLAIN(Answer.RING_AND_ANSWER, Hangup.CALLER),
    /**
     * A PBX's INVITE: quoted display name, Allow, Supported, a session timer, P-Asserted-Identity, User-Agent; the
     * carrier sends 100, 183 with SDP, then answers; the caller hangs up.
     */
    PBX(Answer.PROGRESS_AND_ANSWER, Hangup.CALLER),
    /**
     * A softphone's INVITE: unquoted display name, ports in From and To, the transport in Contact, Subject; the
     * carrier rings and answers; the callee hangs up.
     */
    SOFTPHONE(Answer.RING_AND_ANSWER, Hangup.CALLEE),
    /** Compact header names (RFC 3261 §7.3.3); the carrier answers 486 Busy Here. */
    COMPACT(Answer.BUSY, Hangup.CALLER);

    /** What the carrier answers to the INVITE. */
    enum Answer { RING_AND_ANSWER, PROGRESS_AND_ANSWER, BUSY }

    /** Who sends the BYE of an answered call. */
    enum Hangup { CALLER, CALLEE }

    private static final WarmUpShape[] ALL = values();

    final Answer answer;
    final Hangup hangup;

    WarmUpShape(Answer answer, Hangup hangup) {
        this.answer = answer;
        this.hangup = hangup;
    }

    /** The shape of the {@code index}th call. */
    static WarmUpShape of(int index) {
        return ALL[Math.floorMod(index, ALL.length)];
    }

    /** The final status the caller of a call of this shape expects. */
    int expectedFinal() {
        return answer == Answer.BUSY ? 486 : 200;
    }

    /**
     * The INVITE: {@code caller} is the caller's host:port, {@code gateway} the gateway's, {@code branch} the Via
     * branch and {@code tag} the From tag.
     */
    String invite(String number, String callId, String caller, String gateway, String branch, String tag,
                  String sdp) {
        String callerHost = caller.substring(0, caller.lastIndexOf(':'));
        String to = "sip:" + number + "@" + gateway;
        String headers = switch (this) {
            case PLAIN -> lines("Via: SIP/2.0/UDP " + caller + ";branch=" + branch + ";rport", "Max-Forwards: 70",
                    "From: <sip:warm-up@" + callerHost + ">;tag=" + tag, "To: <" + to + ">", "Call-ID: " + callId,
                    "CSeq: 1 INVITE", "Contact: <sip:warm-up@" + caller + ">");
            case PBX -> lines("Via: SIP/2.0/UDP " + caller + ";rport;branch=" + branch,
                    "From: \"Warm Up\" <sip:+15550100@" + callerHost + ";user=phone>;tag=" + tag,
                    "To: <" + to + ";user=phone>", "Contact: <sip:+15550100@" + caller + ">", "Call-ID: " + callId,
                    "CSeq: 102 INVITE", "Allow: OPTIONS, INVITE, ACK, BYE, CANCEL, UPDATE, PRACK, REFER, NOTIFY, INFO",
                    "Supported: timer, replaces, norefersub", "Session-Expires: 1800", "Min-SE: 90",
                    "P-Asserted-Identity: \"Warm Up\" <sip:+15550100@" + callerHost + ">", "Max-Forwards: 70",
                    "User-Agent: trunkgate warm-up");
            case SOFTPHONE -> lines("Via: SIP/2.0/UDP " + caller + ";branch=" + branch,
                    "From: warmup <sip:warmup@" + caller + ">;tag=" + tag, "To: <" + to + ">", "Call-ID: " + callId,
                    "CSeq: 1 INVITE", "Contact: <sip:warmup@" + caller + ";transport=UDP>", "Max-Forwards: 70",
                    "Subject: warm-up");
            case COMPACT -> lines("v: SIP/2.0/UDP " + caller + ";branch=" + branch + ";rport",
                    "f: <sip:warm-up@" + callerHost + ">;tag=" + tag, "t: <" + to + ">", "i: " + callId,
                    "CSeq: 1 INVITE", "m: <sip:warm-up@" + caller + ">", "k: 100rel, timer", "Max-Forwards: 70");
        };
        boolean compact = this == COMPACT;
        return "INVITE " + (this == PBX ? to + ";user=phone" : to) + " SIP/2.0\r\n" + headers
                + (compact ? "c: " : "Content-Type: ") + "application/sdp\r\n"
                + (compact ? "l: " : "Content-Length: ") + sdp.length() + "\r\n\r\n" + sdp;
    }

    private static String lines(String... headers) {
        return String.join("\r\n", headers) + "\r\n";
    }

    /** The carrier's responses to the INVITE, in order; {@code echo} holds the headers copied from the request. */
    String[] answers(String echo, String toTag, String contact, String sdp) {
        return switch (answer) {
            case RING_AND_ANSWER -> new String[] {
                response("180 Ringing", echo, toTag, contact, "", ""),
                response("200 OK", echo, toTag, contact, "", sdp)};
            case PROGRESS_AND_ANSWER -> new String[] {
                response("100 Trying", echo, "", "", "", ""),
                response("183 Session Progress", echo, toTag, contact, "Server: carrier\r\n", sdp),
                response("200 OK", echo, toTag, contact, "Server: carrier\r\n"
                        + "Allow: INVITE, ACK, BYE, CANCEL, OPTIONS\r\nSupported: timer\r\n"
                        + "Session-Expires: 1800;refresher=uac\r\nRequire: timer\r\n", sdp)};
            case BUSY -> new String[] {
                response("100 Trying", echo, "", "", "", ""),
                response("486 Busy Here", echo, toTag, "", "", "")};
        };
    }

    /** A response: status line, the request's headers ({@code echo}, To last), extra headers, body. */
    static String response(String status, String echo, String toTag, String contact, String extra, String sdp) {
        StringBuilder response = new StringBuilder("SIP/2.0 ").append(status).append("\r\n").append(echo)
                .append(toTag.isEmpty() ? "" : ";tag=" + toTag).append("\r\n");
        if (!contact.isEmpty()) {
            response.append("Contact: ").append(contact).append("\r\n");
        }
        response.append(extra);
        if (!sdp.isEmpty()) {
            response.append("Content-Type: application/sdp\r\n");
        }
        return response.append("Content-Length: ").append(sdp.length()).append("\r\n\r\n").append(sdp).toString();
    }
}
