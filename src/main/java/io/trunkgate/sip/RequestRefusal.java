package io.trunkgate.sip;

import javax.sip.message.Response;

/**
 * Why the proxy refuses a request before anything is done for it, with the status it answers (0: none, the request
 * is dropped) and the tag it is counted under in {@code trunkgate_sip_requests_refused_total{reason}}. A call the
 * gateway takes on and then ends itself gets its answer from {@link Refusals}; a new call shed before it is parsed,
 * from {@link io.trunkgate.overload.ShedReason}.
 */
enum RequestRefusal {
    // the request itself (RequestValidation)
    VERSION_NOT_SUPPORTED(Response.VERSION_NOT_SUPPORTED, "sip_version"),
    TOO_LARGE(Response.MESSAGE_TOO_LARGE, "too_large"),
    BAD_MAX_FORWARDS(Response.BAD_REQUEST, "bad_max_forwards"),
    TOO_MANY_VIAS(Response.TOO_MANY_HOPS, "too_many_vias"),
    ANSWER_NOT_TO_ONE_HOST(0, "via_not_unicast"),
    UNSUPPORTED_URI_SCHEME(Response.UNSUPPORTED_URI_SCHEME, "unsupported_uri_scheme"),
    BAD_EXTENSION(Response.BAD_EXTENSION, "bad_extension"),
    // within a dialog (InDialogForwarder)
    UNKNOWN_DIALOG(Response.CALL_OR_TRANSACTION_DOES_NOT_EXIST, "unknown_dialog"),
    /** The dialog exists, the sender speaks for neither end (DialogParties): 403 and why, never 481. */
    NOT_A_PARTY(Response.FORBIDDEN, "not_a_party", "not a party to this dialog"),
    ROUTE_NOT_ALLOWED(Response.FORBIDDEN, "route_not_allowed", "relayed only to the dialog's other end"),
    /** An INVITE outside a dialog with the Call-ID and From tag of a call in progress ({@link Refusals#CALL_IN_PROGRESS}). */
    MERGED_REQUEST(Response.LOOP_DETECTED, "merged_request");

    final int status;
    final String tag;
    /** The text of the answer's Reason header, or null for none. */
    final String reason;

    RequestRefusal(int status, String tag) {
        this(status, tag, null);
    }

    RequestRefusal(int status, String tag, String reason) {
        this.status = status;
        this.tag = tag;
        this.reason = reason;
    }
}
