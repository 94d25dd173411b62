package io.trunkgate.sip.transaction;

/** Why a client transaction ended without a final response. */
public enum ClientTimeout {
    /** An INVITE had no response within 64*T1 (Timer B). */
    TIMER_B,
    /** A non-INVITE request had no final response within 64*T1 (Timer F). */
    TIMER_F,
    /**
     * An INVITE had no provisional response within Timer C (RFC 3261 §16.8: as if a 408 came). An INVITE that had
     * one when Timer C fired is cancelled instead, and may end with {@link #CANCEL_UNANSWERED}.
     */
    TIMER_C,
    /** An INVITE had no final response within 64*T1 after its CANCEL was sent (RFC 3261 §9.1). */
    CANCEL_UNANSWERED
}
