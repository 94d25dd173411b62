package io.trunkgate.dns;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * The addresses a carrier's URI resolved to, as RFC 3263 finds them: SRV targets in groups of equal priority
 * (a name without SRV, or an IP address, is one target of weight 1), each target with its addresses.
 *
 * @param targets every target, in any order
 * @param ttl     how long the answer may be used (the shortest TTL of the records it was built from)
 */
public record CarrierTargets(List<Target> targets, Duration ttl) {

    /** One SRV target (or the URI's host): its priority and weight and the addresses its name resolved to. */
    public record Target(String name, int priority, int weight, List<CarrierAddress> addresses) {
        public Target {
            addresses = List.copyOf(addresses);
        }
    }

    public CarrierTargets {
        targets = List.copyOf(targets);
    }

    /** A single address, found without DNS. */
    public static CarrierTargets of(CarrierAddress address, Duration ttl) {
        return new CarrierTargets(List.of(new Target(address.ip(), 0, 1, List.of(address))), ttl);
    }

    /** Every address, each once, in the order of {@link #targets}. */
    public List<CarrierAddress> addresses() {
        LinkedHashSet<CarrierAddress> all = new LinkedHashSet<>();
        targets.forEach(target -> all.addAll(target.addresses()));
        return List.copyOf(all);
    }

    /**
     * The addresses in the order one call tries them: lower priority first; among equal priority, targets drawn
     * one by one at random in proportion to their weights (RFC 2782: a target of weight 0, placed first before
     * each draw, has a small chance); each target's addresses in the order DNS gave them.
     */
    public List<CarrierAddress> order(RandomGenerator random) {
        List<Target> byPriority = new ArrayList<>(targets);
        byPriority.sort(Comparator.comparingInt(Target::priority));
        LinkedHashSet<CarrierAddress> ordered = new LinkedHashSet<>();
        int start = 0;
        while (start < byPriority.size()) {
            int end = start;
            while (end < byPriority.size() && byPriority.get(end).priority() == byPriority.get(start).priority()) {
                end++;
            }
            for (Target target : weightedOrder(byPriority.subList(start, end), random)) {
                ordered.addAll(target.addresses());
            }
            start = end;
        }
        return List.copyOf(ordered);
    }

    private static List<Target> weightedOrder(List<Target> samePriority, RandomGenerator random) {
        List<Target> left = new ArrayList<>(samePriority);
        left.sort(Comparator.comparingInt(Target::weight)); // weight 0 first, as RFC 2782 places them
        List<Target> drawn = new ArrayList<>(left.size());
        while (!left.isEmpty()) {
            long sum = 0;
            for (Target target : left) {
                sum += target.weight();
            }
            // RFC 2782 draws from 0..sum so that a target of weight 0 (placed first) has a small chance; drawn
            // from 1..sum when none is left, or two targets of weight 1 would take 2/3 and 1/3 of the calls.
            boolean zeroLeft = left.get(0).weight() == 0;
            long pick = sum == 0 ? 0 : zeroLeft ? random.nextLong(sum + 1) : 1 + random.nextLong(sum);
            long running = 0;
            int chosen = left.size() - 1;
            for (int i = 0; i < left.size(); i++) {
                running += left.get(i).weight();
                if (running >= pick) {
                    chosen = i;
                    break;
                }
            }
            drawn.add(left.remove(chosen));
        }
        return drawn;
    }
}
