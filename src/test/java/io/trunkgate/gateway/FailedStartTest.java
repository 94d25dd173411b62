package io.trunkgate.gateway;

import static org.junit.jupiter.api.Assertions.assertThrows;

import io.trunkgate.config.AdminSettings;
import io.trunkgate.config.GatewayConfig;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.TestConfigs;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/**
 * A start that fails part-way stops what it had started: here the admin server cannot bind, after the SIP
 * stack is listening, and afterwards the SIP port is free again for the next attempt.
 */
class FailedStartTest {

    @Test
    void aSipListenerThatCannotBindLeavesNoOtherListenerBound() throws Exception {
        int sipPort = RedisServerProcess.freePort();
        GatewayConfig config = TestConfigs.onSharedRedis("failed-start", sipPort).build();
        try (ServerSocket tcpTaken = new ServerSocket(sipPort, 50, InetAddress.getByName("127.0.0.1"))) {
            assertThrows(Exception.class, () -> Gateway.start(config));
        }

        // The UDP listener made before the TCP one failed was closed with the failed start.
        try (DatagramSocket again = new DatagramSocket(new InetSocketAddress("127.0.0.1", sipPort))) {
            again.getLocalPort();
        }
    }

    @Test
    void aStartThatFailsAfterTheSipStackListensStopsTheStack() throws Exception {
        int sipPort = RedisServerProcess.freePort();
        GatewayConfig config = TestConfigs.onSharedRedis("failed-start", sipPort).build();
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            AdminSettings admin = config.admin();
            GatewayConfig adminPortTaken = new GatewayConfig(config.source(), config.instanceId(),
                    config.fleetSize(), config.sip(), config.redis(), config.admission(),
                    new AdminSettings(admin.host(), taken.getLocalPort(), admin.token(), admin.requestTimeout(),
                            admin.maxConnections(), admin.maxConnectionsPerAddress()),
                    config.peers(), config.groups(), config.carriers(), config.routes(), config.rerouteHook(),
                    config.records(), config.reroute(), config.dns(), config.capture());

            assertThrows(Exception.class, () -> Gateway.start(adminPortTaken));
        }

        // The stack's UDP listener was closed with the failed start: the port binds at once.
        try (DatagramSocket again = new DatagramSocket(new InetSocketAddress("127.0.0.1", sipPort))) {
            again.getLocalPort();
        }
    }
}
