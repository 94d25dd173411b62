/**
 * What the gateway writes as it runs, kept off the calls' threads: a {@link io.trunkgate.logging.BatchWriter} hands
 * what many threads offer to one writer thread a batch at a time; the console log of logback.xml
 * ({@link io.trunkgate.logging.BatchingConsoleAppender}) and the call records write through one each.
 */
package io.trunkgate.logging;
