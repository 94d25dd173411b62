package io.trunkgate.config;

import java.time.Duration;

/**
 * The calls a starting gateway places through its own listener before it takes traffic (sip.warm-up.*).
 *
 * @param calls   how many; 0 = no warm-up
 * @param maxTime the longest the warm-up may take, however many calls are left
 */
public record WarmUpSettings(int calls, Duration maxTime) {

    public static final WarmUpSettings OFF = new WarmUpSettings(0, Duration.ZERO);
}
