/**
 * The gateway's SIP transaction layer (RFC 3261 §17, with RFC 6026's Accepted states): INVITE and non-INVITE
 * client and server transactions over {@code javax.sip.message} requests and responses, with no socket code and
 * none of JAIN-SIP's stack.
 *
 * <p>A {@link io.trunkgate.sip.transaction.TransactionLayer} matches what is received to the transactions it
 * keeps (§17.1.3, §17.2.3), absorbs retransmissions, retransmits on its timers and sends through a
 * {@link io.trunkgate.sip.transaction.Wire}. Every transaction lives on the event loop of its Call-ID
 * ({@link io.trunkgate.sip.transaction.Scheduler}): its table, its timers (at most one scheduled task per
 * transaction, re-armed) and every call to its listeners, so nothing here takes a lock. Requests that match no
 * transaction go to a {@link io.trunkgate.sip.transaction.RequestHandler}, which answers them statelessly or takes a
 * server transaction for them; responses that match none go to a
 * {@link io.trunkgate.sip.transaction.StrayResponseHandler}.
 */
package io.trunkgate.sip.transaction;
