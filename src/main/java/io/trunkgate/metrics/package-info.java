/**
 * Micrometer meters of the gateway (Prometheus text at /metrics), the wrappers that time Redis calls, and the answer
 * ratios of carriers and peers ({@link io.trunkgate.metrics.AnswerRatios}).
 */
package io.trunkgate.metrics;
