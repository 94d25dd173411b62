/**
 * The admin HTTP server (Netty): health, metrics, the status page and the operator API (blocks, drain, reload).
 * Reads the running gateway through the runtime services and the ports; changes nothing but through them.
 */
package io.trunkgate.admin;
