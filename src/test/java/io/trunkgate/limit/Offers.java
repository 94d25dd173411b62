package io.trunkgate.limit;

import io.trunkgate.testing.ScriptClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** A sequence of call offers on the scripts' test clock, with re-offers, for runs that compare two configurations. */
final class Offers {

    /** One offer of a call: its identity (a re-offer repeats an earlier one) and the script time it arrives at. */
    record Offer(String call, long atMicros) {
    }

    private Offers() {
    }

    /**
     * {@code count} offers 0 to 400 ms apart (about 5 a second, in bursts) from {@link ScriptClock#START_MICROS},
     * 15% of them re-offers of one of the last 40 calls (Call-ID, From tag and CSeq again, up to about 8 s later),
     * from a fixed seed.
     */
    static List<Offer> of(long seed, int count) {
        Random random = new Random(seed);
        List<Offer> offers = new ArrayList<>();
        List<String> calls = new ArrayList<>();
        long at = ScriptClock.START_MICROS;
        for (int i = 0; i < count; i++) {
            at += random.nextInt(400_000);
            String call;
            if (!calls.isEmpty() && random.nextInt(100) < 15) {
                call = calls.get(calls.size() - 1 - random.nextInt(Math.min(40, calls.size())));
            } else {
                call = "call-" + seed + "-" + i + "@test";
                calls.add(call);
            }
            offers.add(new Offer(call, at));
        }
        return offers;
    }
}
