"""Redis time per script call of lua/admit.lua, lua/pace.lua and the lease scripts in their costly states (issues
31 and 47), read from INFO commandstats (usec_per_call of EVALSHA) of a scratch redis-server. Run by
bench/redis-cost.sh; the last line is the worst state's figure and the ceilings it implies.

Each state is built with plain HSET/SET commands (which commandstats counts apart), on the scripts' test clock
(<prefix>:{<tag>}:test-clock, lua/README.md), then measured over several script calls: a state that one call
changes (the first call after a quiet spell, after a clock step) gets a key of its own per measured call."""
import socket
import sys

K = 32  # admit.lua's buckets per block
T0 = 1_767_225_600_000_000  # the test clock's start (2026-01-01T00:00:00Z)
PIN = "e" * 128  # admit.lua's 'e' field, which keeps a precision window's hash a hashtable
pinned = [True]  # whether the scripts measured write 'e' (those from before it do not: their hashes go without)


class Redis:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.buf = b""

    def send(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(out))

    def line(self):
        while b"\r\n" not in self.buf:
            self.buf += self.sock.recv(1 << 20)
        l, self.buf = self.buf.split(b"\r\n", 1)
        return l

    def reply(self):
        l = self.line()
        kind, rest = l[:1], l[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise RuntimeError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self.buf += self.sock.recv(1 << 20)
            v, self.buf = self.buf[:n], self.buf[n + 2:]
            return v.decode()
        if kind == b"*":
            return [self.reply() for _ in range(int(rest))]
        raise RuntimeError("bad reply " + repr(l))

    def call(self, *args):
        self.send(*args)
        return self.reply()

    def pipeline(self, commands):
        for i in range(0, len(commands), 1000):
            chunk = commands[i:i + 1000]
            for c in chunk:
                self.send(*c)
            for _ in chunk:
                self.reply()


def fill(r, key, window_us, precision_us, now, count=1, newest_known=True, current=True):
    """A full window in admit.lua's layout: `count` calls in every bucket up to now's; without `newest_known`, a
    hash without 'z' (merged by a group move, or written before 'z' came in); without `current`, a hash without 'e'
    (written before it came in: a listpack up to 512 fields, by Redis's defaults)."""
    newest = now // precision_us
    oldest = newest - window_us // precision_us + 1
    cmds, blocks = [], {}
    for b in range(oldest, newest + 1):
        cmds.append(("HSET", key, b, count))
        blocks[b // K] = blocks.get(b // K, 0) + count
    cmds += [("HSET", key, "g%d" % g, c) for g, c in blocks.items()]
    cmds.append(("HSET", key, "n", count * (newest - oldest + 1), "o", oldest))
    if newest_known:
        cmds.append(("HSET", key, "z", newest))
    if current and pinned[0]:
        cmds.append(("HSET", key, "e", PIN))
    cmds.append(("PEXPIRE", key, 3_600_000))
    r.pipeline(cmds)


def fill_log(r, key, span_us, now, calls):
    """A sorted set of `calls` members in admit.lua's layout, spread evenly over [now - span, now]."""
    cmds = []
    for i in range(0, calls, 500):
        args = []
        for j in range(i, min(calls, i + 500)):
            args += [now - span_us + span_us * j // calls, "m%07d" % j]
        cmds.append(("ZADD", key, *args))
    cmds.append(("PEXPIRE", key, 3_600_000))
    r.pipeline(cmds)


def evalsha_us(r, calls):
    """Mean Redis time of the EVALSHA calls (each a function that runs one), from INFO commandstats."""
    r.call("CONFIG", "RESETSTAT")
    for c in calls:
        c()
    for line in r.call("INFO", "commandstats").splitlines():
        if line.startswith("cmdstat_evalsha:"):
            fields = dict(f.split("=") for f in line.split(":", 1)[1].split(","))
            return int(fields["calls"]), float(fields["usec_per_call"])
    raise RuntimeError("no EVALSHA counted")


def main():
    port, root, reps = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    r = Redis(port)
    admit_source = open(root + "/lua/admit.lua").read()
    pinned[0] = "PIN" in admit_source
    admit = r.call("SCRIPT", "LOAD", admit_source)
    pace = r.call("SCRIPT", "LOAD", open(root + "/lua/pace.lua").read())
    serial = [0]

    def peer_keys(window_ms, precision_ms, now):
        serial[0] += 1
        tag = "tg:{p:bench-%d}" % serial[0]
        r.call("SET", tag + ":test-clock", now)
        return tag, [tag + ":block:peer:p", "%s:peer:p:%d:%d:v2" % (tag, window_ms, precision_ms), tag + ":seen:peer:p"]

    def admit_call(keys, window_ms, max_, precision_ms):
        serial[0] += 1
        return lambda: r.call("EVALSHA", admit, 3, *keys, "call-%d" % serial[0], 1, 1, 1, window_ms, max_, precision_ms, 0)

    results = []

    def report(name, calls, us):
        results.append("%s: %.1f us per call (%d calls)" % (name, us, calls))
        print(results[-1], flush=True)

    # for reference: an admission into an empty day window, and into a full one (max 10M: still admitted)
    calls = []
    for _ in range(reps):
        tag, keys = peer_keys(86_400_000, 60_000, T0)
        calls.append(admit_call(keys, 86_400_000, 10_000_000, 60_000))
    n, us = evalsha_us(r, calls)
    report("reference: admission into an empty 1d@1m window", n, us)
    tag, keys = peer_keys(86_400_000, 60_000, T0)
    fill(r, keys[1], 86_400_000_000, 60_000_000, T0)
    n, us = evalsha_us(r, [admit_call(keys, 86_400_000, 10_000_000, 60_000) for _ in range(reps * 5)])
    report("reference: admission into a full 1d@1m window (1,440 buckets)", n, us)
    r.call("FLUSHALL")

    # 6: over max after a reload lowered it (full window of 1 call per bucket, max now 100); refusals change nothing,
    # so one key serves every call
    for label, window_ms, precision_ms in (("1d@1s", 86_400_000, 1000), ("1d@1m", 86_400_000, 60_000),
                                           ("1d@3m (480 buckets: a listpack without 'e')", 86_400_000, 180_000)):
        now = T0
        tag, keys = peer_keys(window_ms, precision_ms, now)
        fill(r, keys[1], window_ms * 1000, precision_ms * 1000, now)
        call = admit_call(keys, window_ms, 100, precision_ms)
        if call()[6] != "limit":
            raise RuntimeError("not refused")
        n, us = evalsha_us(r, [call] * (reps * 5))
        report("over max after a lowered max, %s (refused)" % label, n, us)

    calls = []
    for _ in range(reps):
        tag, keys = peer_keys(86_400_000, 180_000, T0)
        fill(r, keys[1], 86_400_000_000, 180_000_000, T0, 1, True, False)
        calls.append(admit_call(keys, 86_400_000, 100, 180_000))
    n, us = evalsha_us(r, calls)
    report("over max after a lowered max, 1d@3m, a hash from before 'e' (listpack; refused)", n, us)
    r.call("FLUSHALL")

    # 7: the first call after a quiet spell of half a window (half the window stale, the gap empty) and of a
    # window and a half (all stale); one key per call
    smallest = 86_400_000 // 2048 + (1 if 86_400_000 % 2048 else 0)
    for label, window_ms, precision_ms, keys_per_state in (
            ("1d@1s", 86_400_000, 1000, reps), ("1h@10ms", 3_600_000, 10, max(2, reps // 4)),
            ("1d@3m", 86_400_000, 180_000, reps),
            ("1d@%dms (smallest allowed for 1d)" % smallest, 86_400_000, smallest, reps)):
        for quiet_label, quiet_us in (("half a window", window_ms * 500), ("1.5 windows", window_ms * 1500)):
            calls = []
            for _ in range(keys_per_state):
                tag, keys = peer_keys(window_ms, precision_ms, T0)
                fill(r, keys[1], window_ms * 1000, precision_ms * 1000, T0)
                r.call("SET", tag + ":test-clock", T0 + quiet_us)
                calls.append(admit_call(keys, window_ms, 10_000_000, precision_ms))
            n, us = evalsha_us(r, calls)
            report("first call after a quiet spell of %s, %s (admitted)" % (quiet_label, label), n, us)
            r.call("FLUSHALL")

    # 7, sorted sets: an exact 1 min window of 100,000 calls, and the seen key of a day of 100,000 calls (1d@1m
    # window), first call after a quiet spell of half their span (50,000 entries stale)
    calls = []
    for _ in range(max(2, reps // 4)):
        serial[0] += 1
        tag = "tg:{p:bench-%d}" % serial[0]
        keys = [tag + ":block:peer:p", tag + ":peer:p:60000", tag + ":seen:peer:p"]
        fill_log(r, keys[1], 60_000_000, T0, 100_000)
        r.call("SET", tag + ":test-clock", T0 + 30_000_000)
        calls.append(admit_call(keys, 60_000, 10_000_000, 0))
    n, us = evalsha_us(r, calls)
    report("first call after a quiet spell of half a window, exact 1 min window of 100,000 calls (admitted)", n, us)
    r.call("FLUSHALL")
    # the seen key's share: the same window with an empty seen key
    for seen_calls, label in ((100_000, "with a seen key of 100,000 calls"), (0, "with an empty seen key")):
        calls = []
        for _ in range(max(2, reps // 4)):
            tag, keys = peer_keys(86_400_000, 60_000, T0)
            fill(r, keys[1], 86_400_000_000, 60_000_000, T0, 69)
            if seen_calls:
                fill_log(r, keys[2], 86_400_000_000, T0, seen_calls)
            r.call("SET", tag + ":test-clock", T0 + 43_200_000_000)
            calls.append(admit_call(keys, 86_400_000, 10_000_000, 60_000))
        n, us = evalsha_us(r, calls)
        report("first call after a quiet spell of half a window, 1d@1m %s (admitted)" % label, n, us)
        r.call("FLUSHALL")

    # 10: Redis's clock 60 s back: a full 1d@1m window, then refused (max 100) and admitted (max 10M) calls
    for label, max_ in (("refused", 100), ("admitted", 10_000_000)):
        calls = []
        for _ in range(reps):
            tag, keys = peer_keys(86_400_000, 60_000, T0)
            fill(r, keys[1], 86_400_000_000, 60_000_000, T0)
            r.call("SET", tag + ":test-clock", T0 - 60_000_000)
            calls.append(admit_call(keys, 86_400_000, max_, 60_000))
        n, us = evalsha_us(r, calls)
        report("first call after a 60 s clock step back, 1d@1m full window (%s)" % label, n, us)
    r.call("FLUSHALL")
    # and a carrier at 10 cps, max-wait 1 s, its slots taken up to max-wait, then the clock 60 s back
    calls = []
    for i in range(reps):
        tag = "tg:{c:bench-%d}" % i
        r.call("SET", tag + ":test-clock", T0)
        while r.call("EVALSHA", pace, 1, tag + ":pace", 100_000, 1, 1_000_000)[0] == 1:
            pass
        r.call("SET", tag + ":test-clock", T0 - 60_000_000)
        calls.append(lambda t=tag: r.call("EVALSHA", pace, 1, t + ":pace", 100_000, 1, 1_000_000))
    n, us = evalsha_us(r, calls)
    report("pace.lua, first reservation after a 60 s clock step back", n, us)

    # a typical peer, {1s, 1000000} exact and {1d, 10000000, 1m}, on Redis's own clock (TIME), calls back to back
    # (each second's calls leave the 1 s window the next second): Redis time and the commands each admission runs
    # (commandstats counts the commands a script calls)
    serial[0] += 1
    tag = "tg:{p:bench-%d}" % serial[0]
    keys = [tag + ":block:peer:p", tag + ":peer:p:1000", tag + ":peer:p:86400000:60000:v2", tag + ":seen:peer:p"]

    def typical():
        serial[0] += 1
        return r.call("EVALSHA", admit, 4, *keys, "call-%d" % serial[0], 1, 1, 2, 1000, 1_000_000, 0, 0,
                      86_400_000, 10_000_000, 60_000, 0)
    for _ in range(200):
        typical()
    r.call("CONFIG", "RESETSTAT")
    for _ in range(reps * 50):
        typical()
    stats = {}
    for line in r.call("INFO", "commandstats").splitlines():
        if line.startswith("cmdstat_"):
            fields = dict(f.split("=") for f in line.split(":", 1)[1].split(","))
            stats[line[len("cmdstat_"):line.index(":")]] = (int(fields["calls"]), float(fields["usec_per_call"]))
    n, us = stats["evalsha"]
    inside = sum(c for name, (c, _) in stats.items() if name not in ("evalsha", "config|resetstat"))
    report("typical admission on Redis's clock, {1s, 1000000} and {1d, 10000000, 1m} (admitted)", n, us)
    results.append("  ... commands per admission: %.1f (%s)" % (inside / n, ", ".join(
        "%s %.1f" % (name.upper(), c / n) for name, (c, _) in sorted(stats.items())
        if name not in ("evalsha", "config|resetstat"))))
    print(results[-1], flush=True)
    r.call("FLUSHALL")

    # 47: a peer and its group with four precision windows (1h@10s and 1d@1m each), full, then the first call after
    # a quiet day (24 h 2 min: every bucket stale) and after a quiet night (8 h: the day windows a third stale);
    # against the reference of one such window admitting a call in its steady state
    scoped = [(3_600_000, 10_000), (86_400_000, 60_000)]

    def four_windows(now, newest_known=True):
        serial[0] += 1
        tag = "tg:{g:bench-%d}" % serial[0]
        r.call("SET", tag + ":test-clock", now)
        keys = [tag + ":block:peer:p"] + ["%s:peer:p:%d:%d:v2" % (tag, w, p) for w, p in scoped]
        keys += [tag + ":block:group:g"] + ["%s:group:g:%d:%d:v2" % (tag, w, p) for w, p in scoped]
        keys.append(tag + ":seen:peer:p")
        for key, (w, p) in zip(keys[1:3] + keys[4:6], scoped + scoped):
            fill(r, key, w * 1000, p * 1000, now, 1, newest_known, newest_known)
        return tag, keys

    def four_call(keys, max_):
        serial[0] += 1
        limits = []
        for w, p in scoped:
            limits += [w, max_, p, 0]
        return lambda: r.call("EVALSHA", admit, len(keys), *keys, "call-%d" % serial[0], 1, 2,
                              2, *limits, 2, *limits)

    calls = []
    for _ in range(reps):
        tag, keys = peer_keys(3_600_000, 10_000, T0)
        fill(r, keys[1], 3_600_000_000, 10_000_000, T0, 1)
        r.call("SET", tag + ":test-clock", T0 + 5_000_000)
        calls.append(admit_call(keys, 3_600_000, 10_000_000, 10_000))
    n, one_window = evalsha_us(r, calls)
    report("reference: one 1h@10s window, steady state (admitted)", n, one_window)
    r.call("FLUSHALL")
    for label, quiet_us, max_, newest_known in (
            ("after a quiet day (admitted)", 86_520_000_000, 10_000_000, True),
            ("after a quiet day, hashes without 'z' and 'e' (written before they came in: once per key after an"
             " upgrade; admitted)", 86_520_000_000, 10_000_000, False),
            ("after a quiet night of 8 h (admitted)", 28_800_000_000, 10_000_000, True),
            ("after a quiet night of 8 h (refused: max 100)", 28_800_000_000, 100, True)):
        calls = []
        for _ in range(reps):
            tag, keys = four_windows(T0, newest_known)
            r.call("SET", tag + ":test-clock", T0 + quiet_us)
            calls.append(four_call(keys, max_))
        n, us = evalsha_us(r, calls)
        report("four precision windows, peer and group, %s" % label, n, us)
        report("  ... that is %.2fx one window" % (us / one_window), n, us)
        r.call("FLUSHALL")

    # 47: 20,000 lapsed leases (an instance crashed with that many calls up) beside 1 live one, in a capped peer's
    # set (admit.lua with its lease part) and a carrier's (take-lease.lua, renew-leases.lua); each call drops 64
    take = r.call("SCRIPT", "LOAD", open(root + "/lua/take-lease.lua").read())
    renew = r.call("SCRIPT", "LOAD", open(root + "/lua/renew-leases.lua").read())

    def lapsed(key, now_ms):
        cmds = []
        for i in range(0, 20_000, 500):
            args = []
            for j in range(i, i + 500):
                args += [now_ms - 1 - j % 5000, "crashed-%d@gw-x" % j]
            cmds.append(("ZADD", key, *args))
        cmds.append(("ZADD", key, now_ms + 30_000, "live@gw-a"))
        cmds.append(("PEXPIRE", key, 3_600_000))
        r.pipeline(cmds)

    calls = []
    for _ in range(reps):
        serial[0] += 1
        tag = "tg:{p:bench-%d}" % serial[0]
        r.call("SET", tag + ":test-clock", T0)
        keys = [tag + ":block:peer:p", tag + ":peer:p:1000", tag + ":seen:peer:p", tag + ":leases:peer:p"]
        lapsed(keys[3], T0 // 1000)
        serial[0] += 1
        calls.append(lambda k=keys, m="call-%d" % serial[0]: r.call(
            "EVALSHA", admit, len(k), *k, m, 1, 1, 1, 1000, 100, 0, 0, m + "@gw-a", 30_000, 10, 0))
    n, us = evalsha_us(r, calls)
    report("admission at a capped peer with 20,000 lapsed leases (admitted)", n, us)
    for label, script, args in (("take-lease.lua", take, ("call@gw-a", 30_000, 10)),
                                ("renew-leases.lua", renew, (30_000, "live@gw-a"))):
        calls = []
        for _ in range(reps):
            serial[0] += 1
            tag = "tg:{c:bench-%d}" % serial[0]
            r.call("SET", tag + ":test-clock", T0)
            lapsed(tag + ":leases", T0 // 1000)
            calls.append(lambda k=tag + ":leases", a=args: r.call("EVALSHA", script, 1, k, *a))
        n, us = evalsha_us(r, calls)
        report("%s at a carrier with 20,000 lapsed leases" % label, n, us)
    r.call("FLUSHALL")

    # 47: {1s, 5} with a shadow {1h, 300, 1min} beside it (the shadow window full, its seen key a day's worth), and
    # {10s, 10} after a 60 s clock step back (the 10 calls ahead of the clock; refused)
    calls = []
    for _ in range(reps):
        serial[0] += 1
        tag = "tg:{p:bench-%d}" % serial[0]
        r.call("SET", tag + ":test-clock", T0)
        keys = [tag + ":block:peer:p", tag + ":peer:p:1000", tag + ":peer:p:3600000:60000:v2",
                tag + ":peer:p:3600000:60000:v2:seen", tag + ":seen:peer:p"]
        fill(r, keys[2], 3_600_000_000, 60_000_000, T0, 5)
        fill_log(r, keys[3], 3_660_000_000, T0, 300)
        serial[0] += 1
        calls.append(lambda k=keys, m="call-%d" % serial[0]: r.call(
            "EVALSHA", admit, len(k), *k, m, 1, 1, 2, 1000, 5, 0, 0, 3_600_000, 300, 60_000, 1))
    n, us = evalsha_us(r, calls)
    report("{1s, 5} beside a shadow {1h, 300, 1min} over its max (admitted, would refuse)", n, us)
    calls = []
    for _ in range(reps):
        serial[0] += 1
        tag = "tg:{p:bench-%d}" % serial[0]
        keys = [tag + ":block:peer:p", tag + ":peer:p:10000", tag + ":seen:peer:p"]
        r.call("SET", tag + ":test-clock", T0)
        for i in range(10):
            r.call("EVALSHA", admit, 3, *keys, "early-%d" % i, 1, 1, 1, 10_000, 10, 0, 0)
        r.call("SET", tag + ":test-clock", T0 - 60_000_000)
        serial[0] += 1
        calls.append(lambda k=keys, m="call-%d" % serial[0]: r.call(
            "EVALSHA", admit, 3, *k, m, 1, 1, 1, 10_000, 10, 0, 0))
    n, us = evalsha_us(r, calls)
    report("{10s, 10} after a 60 s clock step back (refused)", n, us)
    r.call("FLUSHALL")

    # what the layout costs in memory: a full 1h@10s window (377 fields; a hashtable with 'e', else a listpack)
    total = 0
    for i in range(reps):
        fill(r, "memory-%d" % i, 3_600_000_000, 10_000_000, T0)
        total += r.call("MEMORY", "USAGE", "memory-%d" % i, "SAMPLES", 0)
    results.append("memory of a full 1h@10s window: %d B (%s, MEMORY USAGE SAMPLES 0, mean of %d)" % (
        total // reps, r.call("OBJECT", "ENCODING", "memory-0"), reps))
    print(results[-1], flush=True)
    r.call("FLUSHALL")

    # the worst state among those the config allows (it refuses 1d@1s and 1h@10ms: more than 2,048 buckets)
    worst = max(results, key=lambda line: float(line.split(": ")[-1].split(" us")[0]) if " us per call" in line
                and "..." not in line and "1d@1s" not in line and "1h@10ms" not in line else 0)
    us = float(worst.split(": ")[-1].split(" us")[0])
    results.append("worst state: %s -> ceiling %d decisions/s per Redis core, and so per cluster master for one hot"
                   " peer, group or carrier (its keys share one slot)" % (worst, 1_000_000 // us))
    print(results[-1], flush=True)

    with open(sys.argv[4], "w") as out:
        out.write("\n".join(results) + "\n")


if __name__ == "__main__":
    main()
