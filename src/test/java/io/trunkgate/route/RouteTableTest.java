package io.trunkgate.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.RouteConfig;
import io.trunkgate.testing.Carriers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class RouteTableTest {

    private static Map<String, CarrierConfig> carriers(CarrierConfig... carriers) {
        return Stream.of(carriers).collect(Collectors.toMap(CarrierConfig::id, Function.identity()));
    }

    private static CarrierConfig carrier(String id, String... alternates) {
        return Carriers.carrier(id, 10, 1, Duration.ofSeconds(1), List.of(alternates), 100);
    }

    private final RouteTable table = new RouteTable(List.of(
            new RouteConfig("+44", List.of("uk")),
            new RouteConfig("+4420", List.of("london")),
            new RouteConfig("+1", List.of("us")),
            new RouteConfig("", List.of("default"))),
            carriers(carrier("uk"), carrier("london"), carrier("us"), carrier("default")));

    @Test
    void longestPrefixWins() {
        assertEquals("+4420", table.match("+442071234567").orElseThrow().prefix());
        assertEquals("+44", table.match("+441611234567").orElseThrow().prefix());
        assertEquals("+1", table.match("+12125551234").orElseThrow().prefix());
        assertEquals("", table.match("+33123456789").orElseThrow().prefix());
    }

    @Test
    void visualSeparatorsAreIgnoredAndNamesMatchOnlyTheDefaultRoute() {
        assertEquals("+4420", table.match("+44-20-7123-4567").orElseThrow().prefix());
        assertEquals("", table.match("alice").orElseThrow().prefix());
        assertEquals("", table.match("44x20").orElseThrow().prefix());
    }

    @Test
    void noDefaultRouteMeansNoMatch() {
        RouteTable noDefault = new RouteTable(List.of(new RouteConfig("+44", List.of("uk"))), carriers(carrier("uk")));
        assertTrue(noDefault.match("+33123").isEmpty());
        assertTrue(noDefault.chain("+33123").isEmpty());
    }

    @Test
    void alternatesExtendTheChainWithoutRepeatingACarrier() {
        RouteTable withAlternates = new RouteTable(List.of(new RouteConfig("", List.of("a", "b"))),
                carriers(carrier("a", "c", "b"), carrier("b", "a", "d"), carrier("c", "d"), carrier("d", "a")));
        assertEquals(List.of("a", "b", "c", "d"),
                withAlternates.chain("+1555").stream().map(CarrierConfig::id).toList());
    }
}
