/**
 * Overload control at the SIP listeners: how long received messages wait (in the socket, then for a worker), the
 * rate of new calls let in after an overload, the load of a UDP listener's receive loop, and the gate asked
 * whether a new call is shed before it is parsed.
 */
package io.trunkgate.sip.transport;
