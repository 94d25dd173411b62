/** The {@code trunkgate} command: {@code run} and {@code check-config}. The top of the layers. */
package io.trunkgate.cli;
