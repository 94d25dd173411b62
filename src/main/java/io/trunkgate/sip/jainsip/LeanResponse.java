package io.trunkgate.sip.jainsip;

import gov.nist.javax.sip.message.SIPResponse;

/** A response as {@link LeanMsgParser} reads it, and every copy of it: JAIN-SIP's, encoded by {@link WireEncoding}. */
final class LeanResponse extends SIPResponse {

    @Override
    public byte[] encodeAsBytes(String transport) {
        byte[] wire = getStatusLine() == null ? null
                : WireEncoding.encode(this, getStatusLine().encode(), transport, headers, contentLengthHeader,
                        getCharset());
        return wire != null ? wire : super.encodeAsBytes(transport);
    }
}
