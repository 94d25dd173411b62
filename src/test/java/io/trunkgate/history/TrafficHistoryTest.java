package io.trunkgate.history;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.trunkgate.history.TrafficHistory.CarrierSecond;
import io.trunkgate.history.TrafficHistory.PeerSecond;
import io.trunkgate.history.TrafficHistory.Tick;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TrafficHistoryTest {

    private static Tick tick(long second, Map<String, PeerSecond> peers) {
        return new Tick(second * 1000, peers, Map.of("carrier-a", new CarrierSecond((int) second, 50, 20.0, 1, 0)));
    }

    @Test
    void keepsOnlyTheNewestCapacityTicksOldestFirst() {
        TrafficHistory history = new TrafficHistory(3);
        for (long second = 1; second <= 5; second++) {
            history.add(tick(second, Map.of()));
        }
        assertEquals(List.of(3000L, 4000L, 5000L), history.ticks().stream().map(Tick::epochMillis).toList());
        assertEquals(List.of(3, 4, 5), history.series().carriers().get(0).sent());
        assertEquals(3, history.series().capacity());
    }

    @Test
    void aPeerHasOneValuePerTickAndNullWhereItWasNotConfigured() {
        TrafficHistory history = new TrafficHistory(10);
        history.add(tick(1, Map.of("acme", new PeerSecond(4, 1, 10.0))));
        history.add(tick(2, Map.of("globex", new PeerSecond(2, 0, null))));
        history.add(tick(3, Map.of("acme", new PeerSecond(7, 3, 5.0))));

        TrafficHistory.Series series = history.series();
        assertEquals(List.of(1000L, 2000L, 3000L), series.times());
        assertEquals(List.of("acme", "globex"), series.peers().stream().map(TrafficHistory.PeerSeries::id).toList());
        TrafficHistory.PeerSeries acme = series.peers().get(0);
        assertEquals(Arrays.asList(4, null, 7), acme.admitted());
        assertEquals(Arrays.asList(1, null, 3), acme.refused());
        assertEquals(Arrays.asList(10.0, null, 5.0), acme.limitCps());
        assertEquals(Arrays.asList(null, 2, null), series.peers().get(1).admitted());
    }
}
