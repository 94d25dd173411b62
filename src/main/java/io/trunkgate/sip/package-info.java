/**
 * The stateful SIP proxy (JAIN-SIP). An INVITE reads top-down: {@link io.trunkgate.sip.SipProxy} sorts and
 * sheds, {@link io.trunkgate.sip.InviteCall} asks admission, routes, is paced and forwarded; its answers
 * come from {@link io.trunkgate.sip.Refusals} and its requests from {@link io.trunkgate.sip.SipMessages}.
 * Dialogs the gateway admitted are relayed by {@link io.trunkgate.sip.InDialogForwarder}.
 * Both reach the SIP stack through a narrow interface of their own ({@link io.trunkgate.sip.CallLegs},
 * {@link io.trunkgate.sip.InDialogStack}), on JAIN-SIP in {@code JainSipCallLegs} and {@code JainSipDialogStack};
 * a call reads time and runs its timers on its {@link io.trunkgate.sip.CallTime}, so tests drive both without
 * sockets on a manual clock. The proxy uses the
 * {@code javax.sip} API; what it needs of JAIN-SIP's implementation it reaches through the adapter,
 * {@code io.trunkgate.sip.jainsip}.
 *
 * <p>Threads: a request or response runs on a JAIN-SIP worker; an admission verdict on a
 * {@code redis-results} thread; a held call's release on {@code pacer-timer}; answer, ring and drain timers on
 * {@code sip-timers}. {@link io.trunkgate.sip.InviteCall} is synchronized, so it sees these one at a time.
 */
package io.trunkgate.sip;
