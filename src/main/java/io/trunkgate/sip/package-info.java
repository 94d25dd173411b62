/**
 * The stateful SIP proxy, on the gateway's own transports ({@code sip.transport}) and transaction layer
 * ({@code sip.transaction}), with JAIN-SIP's {@code javax.sip.message} API as its message model. An INVITE reads
 * top-down: {@link io.trunkgate.sip.SipProxy} parses, sorts and sheds, {@link io.trunkgate.sip.InviteCall} asks
 * admission, routes, is paced and forwarded; its answers come from {@link io.trunkgate.sip.Refusals} and its
 * requests from {@link io.trunkgate.sip.SipMessages}. Dialogs the gateway admitted are relayed by
 * {@link io.trunkgate.sip.InDialogForwarder}. Both reach the transactions through a narrow interface of their own
 * ({@link io.trunkgate.sip.CallLegs}, {@link io.trunkgate.sip.InDialogStack}), implemented in
 * {@code TransactionCallLegs} and {@code TransactionDialogStack}; a call reads time and runs its timers on its
 * {@link io.trunkgate.sip.CallTime}, so tests drive both without sockets on a manual clock.
 *
 * <p>Threads: everything of a call runs on its Call-ID's SIP loop ({@code SipTransports.loopFor}): its messages,
 * its transactions' and its own timers, and the answers it waited for (an admission verdict completed on
 * {@code redis-results}, a held call's release on {@code pacer-timer}, a reroute hook's choice), each handed back to
 * the loop ({@link io.trunkgate.sip.CallTime#events}). A host name a message goes to is looked up on
 * {@code sip-resolve}, a reroute hook class runs on {@code reroute-hook}: never on a SIP loop.
 */
package io.trunkgate.sip;
