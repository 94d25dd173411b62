/**
 * The adapter to JAIN-SIP's reference implementation as the gateway's message model, the only package that depends
 * on {@code gov.nist}: the parser of what the transports received ({@link io.trunkgate.sip.jainsip.ReceivedMessageParser},
 * on {@link io.trunkgate.sip.jainsip.LeanMsgParser}), the encoding of what is sent, and the few functions the proxy
 * needs beyond {@code javax.sip} ({@link io.trunkgate.sip.jainsip.JainSip}). JAIN-SIP's stack is not used.
 * docs/jain-sip.md lists what it reaches past the API.
 */
package io.trunkgate.sip.jainsip;
