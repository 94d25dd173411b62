/** Micrometer meters of the gateway (Prometheus text at /metrics), and the wrappers that time Redis calls. */
package io.trunkgate.metrics;
