package io.trunkgate.overload;

/**
 * Why a new INVITE is answered 503 before admission: the text of its Reason header and its tag in
 * {@code trunkgate_calls_shed_total{reason}}.
 */
public enum ShedReason {
    /** The gateway warms up (decided by the SIP front end, which knows the warm-up's source). */
    STARTING("gateway starting", "starting"),
    SHUTTING_DOWN("gateway shutting down", "shutting_down"),
    CALLS_IN_PROGRESS("too many calls in progress", "calls_in_progress"),
    CALL_RATE("over the gateway's new-call rate", "call_rate"),
    OVERLOAD("gateway overloaded", "overload"),
    DIALOGS("too many dialogs", "dialogs");

    private final String text;
    private final String tag;

    ShedReason(String text, String tag) {
        this.text = text;
        this.tag = tag;
    }

    /** The text of the 503's Reason header. */
    public String text() {
        return text;
    }

    /** The {@code reason} label of {@code trunkgate_calls_shed_total}. */
    public String tag() {
        return tag;
    }
}
