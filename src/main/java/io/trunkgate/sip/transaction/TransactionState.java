package io.trunkgate.sip.transaction;

/** Where a transaction is in its state machine (RFC 3261 figures 5 to 8, with RFC 6026's Accepted). */
public enum TransactionState {
    /** An INVITE client transaction before any response. */
    CALLING,
    /** A non-INVITE transaction before any response. */
    TRYING,
    /** After a provisional response. */
    PROCEEDING,
    /** After a final response (a non-2xx one, for INVITE), absorbing copies. */
    COMPLETED,
    /** An INVITE server transaction that received the ACK of its non-2xx final response. */
    CONFIRMED,
    /** An INVITE transaction after a 2xx (RFC 6026): further 2xx pass, copies of the INVITE are absorbed. */
    ACCEPTED,
    /** Over: no longer in the table, a message for it matches nothing. */
    TERMINATED
}
