/** The HEP encoding, the links to the collector and the thread that drains the queue into them. */
package io.trunkgate.capture.internal;
