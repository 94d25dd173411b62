/**
 * The composition root: {@link io.trunkgate.gateway.Gateway} builds every part (Redis, the admission and pacing
 * ports, the SIP proxy, the admin server, live reload) with the threads of
 * {@link io.trunkgate.gateway.GatewayThreads}, starts them in order and stops them in reverse. Nothing imports it
 * but the command line.
 */
package io.trunkgate.gateway;
