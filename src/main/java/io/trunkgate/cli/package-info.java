/** The {@code trunkgate} command: {@code run}, {@code check-config} and the admin commands. The top of the layers. */
package io.trunkgate.cli;
