package io.trunkgate.sip.jainsip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

import gov.nist.javax.sip.SipStackImpl;
import io.trunkgate.config.SipSettings;
import io.trunkgate.overload.OverloadController;
import io.trunkgate.overload.OverloadSettings;
import io.trunkgate.testing.SipSockets;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SipStackFactoryTest {

    @Test
    void aStackCreatedUnderTheNameOfAStoppedOneIsANewStackWithItsOwnSettings() throws Exception {
        String name = "same-name-" + SipSockets.freePort();
        SipStackFactory.Stack first = SipStackFactory.create(name, settings(3), overload());
        first.stop();
        SipStackFactory.Stack second = SipStackFactory.create(name, settings(1), overload());
        try {
            // JAIN-SIP's factory hands back the stack it made under a name: the second gateway in a JVM got the
            // first one's, with its three workers
            assertNotSame(first.stack(), second.stack());
            assertEquals("1", ((SipStackImpl) second.stack()).getConfigurationProperties()
                    .getProperty("gov.nist.javax.sip.THREAD_POOL_SIZE"));
        } finally {
            second.stop();
        }
    }

    private static SipSettings settings(int workers) throws Exception {
        return TestConfigs.onSharedRedis("stack-name", SipSockets.freePort()).workerThreads(workers).build().sip();
    }

    private static OverloadController overload() {
        OverloadSettings settings = OverloadSettings.of(Duration.ofMillis(50), 10_000, 0);
        return new OverloadController(() -> settings, System::nanoTime);
    }
}
