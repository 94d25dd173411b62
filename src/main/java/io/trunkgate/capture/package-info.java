/**
 * SIP capture: a copy of every SIP message the gateway receives and sends, as HEP version 3, to a Homer collector
 * over UDP or TCP ({@link io.trunkgate.capture.HepCapture}). The SIP edge hands each message to a
 * {@link io.trunkgate.capture.Capture}, which only queues it: one thread of its own encodes and sends, so a slow or
 * dead collector never holds up a call; what does not fit in the queue is dropped and counted.
 */
package io.trunkgate.capture;
