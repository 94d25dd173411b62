/**
 * The adapter to JAIN-SIP's reference implementation, the only package that depends on {@code gov.nist}: the stack
 * as the gateway builds it ({@link io.trunkgate.sip.jainsip.SipStackFactory}), its listeners and connections with
 * the limits, framing and ordering JAIN-SIP lacks, its timer, router, parser and logging, the few functions the
 * proxy needs beyond {@code javax.sip} ({@link io.trunkgate.sip.jainsip.JainSip}), and the start-up check that the
 * JAIN-SIP on the class path is the one these target. docs/jain-sip.md lists every workaround.
 */
package io.trunkgate.sip.jainsip;
