package io.trunkgate.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The gateway's traffic second by second over the last {@code capacity} seconds: a ring of one {@link Tick} per
 * second, the oldest overwritten, so memory is bounded by capacity x (peers + carriers). Written by one
 * sampler, read by the admin server.
 */
public final class TrafficHistory {

    /** One peer in one second: calls admitted and refused at admission, and its shortest-window limit in calls/s. */
    public record PeerSecond(int admitted, int refused, Double limitCps) {
    }

    /**
     * One carrier in one second: calls sent to it and its rate, the wait to its next slot (fleet-wide; null when
     * unknown), the calls held for it and the calls rerouted away from it.
     */
    public record CarrierSecond(int sent, double cps, Double waitMs, int held, int reroutes) {
    }

    /** What one sample saw, keyed by peer and carrier id. */
    public record Tick(long epochMillis, Map<String, PeerSecond> peers, Map<String, CarrierSecond> carriers) {
        public Tick {
            peers = Map.copyOf(peers);
            carriers = Map.copyOf(carriers);
        }
    }

    /** The JSON of GET /api/history: per id, one value per tick (null where it was not configured then). */
    public record Series(int resolutionMs, int capacity, List<Long> times, List<PeerSeries> peers,
                         List<CarrierSeries> carriers) {
    }

    public record PeerSeries(String id, List<Integer> admitted, List<Integer> refused, List<Double> limitCps) {
    }

    public record CarrierSeries(String id, List<Integer> sent, List<Double> cps, List<Double> waitMs,
                                List<Integer> held, List<Integer> reroutes) {
    }

    private final Tick[] ring;
    private int next;
    private int size;

    public TrafficHistory(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
        }
        ring = new Tick[capacity];
    }

    public synchronized void add(Tick tick) {
        ring[next] = tick;
        next = (next + 1) % ring.length;
        size = Math.min(size + 1, ring.length);
    }

    /** The ticks held, oldest first. */
    public synchronized List<Tick> ticks() {
        List<Tick> ticks = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            ticks.add(ring[(next - size + i + ring.length) % ring.length]);
        }
        return ticks;
    }

    public Series series() {
        List<Tick> ticks = ticks();
        List<PeerSeries> peers = ids(ticks, Tick::peers).stream().map(id -> new PeerSeries(id,
                column(ticks, t -> t.peers().get(id), PeerSecond::admitted),
                column(ticks, t -> t.peers().get(id), PeerSecond::refused),
                column(ticks, t -> t.peers().get(id), PeerSecond::limitCps))).toList();
        List<CarrierSeries> carriers = ids(ticks, Tick::carriers).stream().map(id -> new CarrierSeries(id,
                column(ticks, t -> t.carriers().get(id), CarrierSecond::sent),
                column(ticks, t -> t.carriers().get(id), CarrierSecond::cps),
                column(ticks, t -> t.carriers().get(id), CarrierSecond::waitMs),
                column(ticks, t -> t.carriers().get(id), CarrierSecond::held),
                column(ticks, t -> t.carriers().get(id), CarrierSecond::reroutes))).toList();
        return new Series(1000, ring.length, ticks.stream().map(Tick::epochMillis).toList(), peers, carriers);
    }

    private static TreeSet<String> ids(List<Tick> ticks, Function<Tick, Map<String, ?>> byId) {
        TreeSet<String> ids = new TreeSet<>();
        ticks.forEach(t -> ids.addAll(byId.apply(t).keySet()));
        return ids;
    }

    private static <S, V> List<V> column(List<Tick> ticks, Function<Tick, S> entry, Function<S, V> value) {
        List<V> column = new ArrayList<>(ticks.size());
        for (Tick tick : ticks) {
            S second = entry.apply(tick);
            column.add(second == null ? null : value.apply(second));
        }
        return column;
    }
}
