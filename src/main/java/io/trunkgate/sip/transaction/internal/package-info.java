/**
 * The transaction layer's implementation: the per-loop tables, the four state machines and the keys that match
 * messages to them.
 */
package io.trunkgate.sip.transaction.internal;
