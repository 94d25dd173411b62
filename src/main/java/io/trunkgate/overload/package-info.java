/**
 * Overload control: whether a new call is shed, and why ({@link io.trunkgate.overload.OverloadController}), from
 * the configured caps and from how long received messages wait, which the SIP transport reports as plain numbers.
 * The rules are in docs/overload.md; every constant is in {@link io.trunkgate.overload.OverloadSettings}.
 */
package io.trunkgate.overload;
