package io.trunkgate.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Optional;

/**
 * The calls a starting gateway places through its own listener before it takes traffic (sip.warm-up.*).
 *
 * @param calls         how many at least; 0 = no warm-up
 * @param maxTime       the longest the warm-up may take, however many calls are left; empty: the warm-up's
 *                      default, which depends on whether the JVM starts from a start cache (docs/warm-up.md)
 * @param untilCompiled after {@code calls}, go on while the JIT compiler is busy (the configuration file always
 *                      asks for it; tests that count the calls do not)
 */
public record WarmUpSettings(int calls, Optional<Duration> maxTime, boolean untilCompiled) {

    public static final WarmUpSettings OFF = new WarmUpSettings(0, Duration.ZERO, false);

    /**
     * The warm-up caller's and carrier's address: loopback, and far from the 127.0.0.1 everyone uses. What happens
     * to its datagrams (one waiting too long for its call's loop while the JIT compiler has the cores) is no news to an
     * operator.
     */
    public static final InetAddress ADDRESS = warmUpAddress();

    private static InetAddress warmUpAddress() {
        try {
            return InetAddress.getByAddress(new byte[] {127, (byte) 255, (byte) 255, (byte) 254});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    public WarmUpSettings(int calls, Duration maxTime, boolean untilCompiled) {
        this(calls, Optional.of(maxTime), untilCompiled);
    }
}
