package io.trunkgate.sip.jainsip;

import gov.nist.javax.sip.message.SIPRequest;

/** A request as {@link LeanMsgParser} reads it, and every copy of it: JAIN-SIP's, encoded by {@link WireEncoding}. */
final class LeanRequest extends SIPRequest {

    @Override
    public byte[] encodeAsBytes(String transport) {
        byte[] wire = isNullRequest() || getRequestLine() == null ? null
                : WireEncoding.encode(this, getRequestLine().encode(), transport, headers, contentLengthHeader,
                        getCharset());
        return wire != null ? wire : super.encodeAsBytes(transport);
    }
}
