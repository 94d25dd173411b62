#!/usr/bin/env python3
"""Analysis of SIPp output for the bench/sipp-*.sh scripts (no third-party modules).

  sipp_analyze.py stat FILE.csv [--expect N]
      Last row of a SIPp -trace_stat file: calls created, successful, failed (and the failure kinds that are
      non-zero), retransmissions. With --expect N, exits 1 unless N calls were created, N succeeded and none
      failed.
  sipp_analyze.py rtt FILE.csv... [--rtd invite]
      Percentiles of the response times of one rtd in SIPp -trace_rtt files (SIPp writes whole milliseconds).
  sipp_analyze.py window FILE.log... --window 1.0 --max 100 [--offered-seconds 30]
      INVITE arrival times logged by bench/sipp/uas.xml ("INVITE <date> <time> <epoch.micros> <call-id>"):
      the largest number of arrivals in any rolling interval [t, t + window) (every arrival is tried as the
      start, which is where a maximum lies), and the admitted total against the strict maximum
      max * (floor(offered / window) + 1): over a run of that length no admitting policy that respects the
      limit can do better. Exits 1 when a window holds more than --max.
  sipp_analyze.py gaps FILE.log... --min-ms 19 [--target 0.99]
      Gaps between consecutive INVITE arrivals: the share >= min-ms, percentiles, the smallest gaps.
      Exits 1 when the share is below --target.
  sipp_analyze.py admissions ZSET.log CARRIER.log --offered UAC-LOGS... --window 1 --max 100
      Repeated `redis-cli zrange KEY 0 -1 withscores` dumps of the peer's 1 s sliding log: each admitted
      call's member (base64url of the first 12 bytes of sha256 of "Call-ID\nFrom tag\nCSeq", as CallMember and
      CallIdentity make it; the OFFER lines give the Call-ID and From tag, the CSeq is 1) with its score, the Redis TIME in
      microseconds at which admit.lua admitted it. Prints the most admissions in any closed interval of the
      window's length on that clock (exit 1 above --max) and the delay admission -> arrival at the carrier.
  sipp_analyze.py outcomes UAC.log...
      OFFER and REJECT lines of bench/sipp/uac-503.xml callers: calls offered, answered 503, and the time
      from each offer to its 503 (percentiles, ms), plus per-second offered and rejected counts.
Duplicate Call-IDs (a retransmitted INVITE logged twice) are counted once, at their first arrival.
"""
import argparse
import csv
import math
import sys


def last_row(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f, delimiter=";"))
    if len(rows) < 2:
        raise SystemExit(f"{path}: no statistics row")
    header, row = rows[0], rows[-1]
    return {name: value for name, value in zip(header, row)}


def cmd_stat(args):
    row = last_row(args.file)
    created = int(row["TotalCallCreated"])
    ok = int(row["SuccessfulCall(C)"])
    failed = int(row["FailedCall(C)"])
    kinds = {k[len("Failed"):-3]: int(v) for k, v in row.items()
             if k.startswith("Failed") and k.endswith("(C)") and k != "FailedCall(C)" and v and int(v) > 0}
    retrans = int(row["Retransmissions(C)"])
    elapsed = row["ElapsedTime(C)"]
    rate = row.get("CallRate(C)", "?")
    print(f"created={created} successful={ok} failed={failed} retransmissions={retrans} "
          f"elapsed={elapsed} call_rate={rate}" + (f" failures={kinds}" if kinds else ""))
    if args.expect is not None and not (created == args.expect and ok == args.expect and failed == 0):
        print(f"FAIL: expected {args.expect} calls created and successful, none failed", file=sys.stderr)
        return 1
    return 0


def percentile(sorted_values, p):
    """Nearest-rank percentile: the smallest value with at least p% of the values at or below it."""
    if not sorted_values:
        return float("nan")
    rank = max(1, math.ceil(p / 100.0 * len(sorted_values)))
    return sorted_values[rank - 1]


def cmd_rtt(args):
    values = []
    for path in args.files:
        with open(path, newline="") as f:
            for row in csv.reader(f, delimiter=";"):
                if len(row) >= 3 and row[2] == args.rtd:
                    values.append(float(row[1]))
    values.sort()
    if not values:
        print(f"rtd {args.rtd}: no samples")
        return 1
    print(f"rtd {args.rtd}: n={len(values)} p50={percentile(values, 50):g}ms p90={percentile(values, 90):g}ms "
          f"p99={percentile(values, 99):g}ms p99.9={percentile(values, 99.9):g}ms max={values[-1]:g}ms")
    return 0


def arrivals(paths, tag="INVITE"):
    seen = set()
    times = []
    for path in paths:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) < 5 or parts[0] != tag:
                    continue
                call_id = parts[4]
                if call_id in seen:
                    continue
                seen.add(call_id)
                times.append(float(parts[3]))
    times.sort()
    return times


def cmd_window(args):
    t = arrivals(args.files)
    if not t:
        print("no INVITE arrivals")
        return 1
    worst, worst_at, j = 0, t[0], 0
    for i in range(len(t)):
        # arrivals in [t[i], t[i] + window)
        while j < len(t) and t[j] < t[i] + args.window:
            j += 1
        if j - i > worst:
            worst, worst_at = j - i, t[i]
    span = t[-1] - t[0]
    offers = arrivals(args.offered, "OFFER") if args.offered else []
    if args.offered_seconds is not None:
        offered = args.offered_seconds
    elif len(offers) > 1:
        offered = offers[-1] - offers[0]
    else:
        offered = span
    strict_max = args.max * (math.floor(offered / args.window) + 1)
    print(f"arrivals={len(t)} span={span:.3f}s max_in_any_{args.window:g}s_window={worst} "
          f"(starting at {worst_at:.6f}) limit={args.max}")
    print(f"admitted={len(t)} strict_max={strict_max} (= {args.max} x (floor({offered:.3f}s / {args.window:g}s) + 1)) "
          f"ratio={len(t) / strict_max:.4f}")
    if offers:
        # The best any limiter can do on these very offers: admit every offer that fits (greedy, which is
        # optimal for "at most max in any window"), judged on the offer times as the callers sent them.
        best, admitted_times, k = 0, [], 0
        for x in offers:
            while k < len(admitted_times) and admitted_times[k] <= x - args.window:
                k += 1
            if len(admitted_times) - k < args.max:
                admitted_times.append(x)
                best += 1
        print(f"offered={len(offers)} over {offers[-1] - offers[0]:.3f}s; greedy optimum on the offer times={best}; "
              f"admitted/optimum={len(t) / best:.4f}")
        if args.min_optimum_ratio is not None and len(t) < args.min_optimum_ratio * best:
            print(f"FAIL: admitted {len(t)} < {args.min_optimum_ratio:g} x optimum {best}", file=sys.stderr)
            return 1
    per_second = {}
    for x in t:
        per_second[int(x - t[0])] = per_second.get(int(x - t[0]), 0) + 1
    print("per second from the first arrival: " + " ".join(str(per_second.get(s, 0))
                                                           for s in range(int(span) + 1)))
    judged = args.window - args.jitter_ms / 1000
    forgiven = max_in_window(t, judged) if args.jitter_ms else worst
    if args.jitter_ms:
        # a call admitted at the very end of one window may reach the wire a few ms later, in the next
        print(f"max_in_any_{judged:g}s_window={forgiven} ({args.jitter_ms:g} ms of jitter between admission and "
              f"the wire forgiven)")
    if forgiven > args.max:
        print(f"FAIL: {forgiven} arrivals in one {judged:g}s window > {args.max}", file=sys.stderr)
        return 1
    if args.min_ratio is not None and len(t) / strict_max < args.min_ratio:
        print(f"FAIL: admitted {len(t)} < {args.min_ratio:g} x {strict_max}", file=sys.stderr)
        return 1
    return 0


def cmd_gaps(args):
    t = arrivals(args.files)
    if len(t) < 2:
        print("fewer than 2 INVITE arrivals")
        return 1
    gaps = sorted((b - a) * 1000.0 for a, b in zip(t, t[1:]))
    ok = sum(1 for g in gaps if g >= args.min_ms)
    share = ok / len(gaps)
    span = t[-1] - t[0]
    print(f"arrivals={len(t)} span={span:.3f}s mean_rate={(len(t) - 1) / span:.3f}/s gaps={len(gaps)} "
          f">={args.min_ms:g}ms: {ok} ({100.0 * share:.2f}%)")
    print("gap ms: min={:.3f} p1={:.3f} p5={:.3f} p50={:.3f} p95={:.3f} p99={:.3f} max={:.3f}".format(
        gaps[0], percentile(gaps, 1), percentile(gaps, 5), percentile(gaps, 50), percentile(gaps, 95),
        percentile(gaps, 99), gaps[-1]))
    print("smallest 10 gaps ms: " + " ".join(f"{g:.3f}" for g in gaps[:10]))
    # Against the ideal schedule first + i * spacing (spacing = the median gap): how early / late each arrival is.
    # A short gap after a late arrival (catching up) shows as lateness, a rate above the pacing as earliness.
    spacing = percentile(gaps, 50) / 1000.0
    dev = sorted((x - t[0] - i * spacing) * 1000.0 for i, x in enumerate(t))
    print(f"arrival - (first + i x {spacing * 1000:.3f} ms), ms: min={dev[0]:.3f} p50={percentile(dev, 50):.3f} "
          f"p99={percentile(dev, 99):.3f} max={dev[-1]:.3f}; most arrivals in any 1 s: {max_in_window(t, 1.0)}")
    if share < args.target:
        print(f"FAIL: {100.0 * share:.2f}% of gaps >= {args.min_ms:g} ms, target {100.0 * args.target:g}%",
              file=sys.stderr)
        return 1
    return 0


def max_in_window(times, window):
    worst, j = 0, 0
    for i in range(len(times)):
        while j < len(times) and times[j] < times[i] + window:
            j += 1
        worst = max(worst, j - i)
    return worst


def cmd_admissions(args):
    import base64
    import hashlib
    member_of = {}
    for path in args.offered:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 6 and parts[0] == "OFFER":
                    digest = hashlib.sha256(f"{parts[4]}\n{parts[5]}\n1".encode()).digest()[:12]
                    member_of[base64.urlsafe_b64encode(digest).decode().rstrip("=")] = parts[4]
    admitted_at = {}   # Call-ID -> score (Redis TIME in microseconds at admission)
    with open(args.zset) as f:
        lines = [line.strip() for line in f]
    for i in range(len(lines) - 1):
        cid = member_of.get(lines[i])
        if cid is not None:
            try:
                admitted_at[cid] = int(float(lines[i + 1]))
            except ValueError:
                pass
    arrived = {}
    with open(args.carrier) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 5 and parts[0] == "INVITE":
                arrived.setdefault(parts[4], float(parts[3]))
    joined = [(admitted_at[c], arrived[c]) for c in arrived if c in admitted_at]
    extra = [c for c in admitted_at if c not in arrived]
    print(f"admissions in the sliding log: {len(admitted_at)} of {len(member_of)} offered calls; carrier arrivals "
          f"{len(arrived)}, of which found in the log {len(joined)}; in the log but not at the carrier {len(extra)}")
    adm = sorted(admitted_at.values())
    window_us = int(args.window * 1_000_000)
    worst, j = 0, 0
    for i in range(len(adm)):   # closed interval [x, x + window]: the limiter's own rule (counts while x >= now - window)
        while j < len(adm) and adm[j] <= adm[i] + window_us:
            j += 1
        worst = max(worst, j - i)
    print(f"on the limiter's clock (Redis TIME, us): max admissions in any closed {args.window:g}s interval = "
          f"{worst} (limit {args.max})")
    if joined:
        delays = sorted((b - a / 1e6) * 1000.0 for a, b in joined)
        print("delay admission -> INVITE at the carrier, ms: p50={:.2f} p90={:.2f} p99={:.2f} max={:.2f}".format(
            percentile(delays, 50), percentile(delays, 90), percentile(delays, 99), delays[-1]))
    if arrived and not joined:
        print("FAIL: none of the INVITEs at the carrier found in the sliding log: nothing checked")
        return 1
    return 1 if worst > args.max else 0


def cmd_outcomes(args):
    offered = {}
    rejected = {}
    for path in args.files:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 5 and parts[0] in ("OFFER", "REJECT"):
                    (offered if parts[0] == "OFFER" else rejected).setdefault(parts[4], float(parts[3]))
    if not offered:
        print("no OFFER lines")
        return 1
    latency = sorted((rejected[c] - offered[c]) * 1000.0 for c in rejected if c in offered)
    print(f"offered={len(offered)} rejected_503={len(rejected)} ({100.0 * len(rejected) / len(offered):.1f}%)")
    if latency:
        print("offer -> 503, ms: p50={:.2f} p90={:.2f} p99={:.2f} p99.9={:.2f} max={:.2f}".format(
            percentile(latency, 50), percentile(latency, 90), percentile(latency, 99), percentile(latency, 99.9),
            latency[-1]))
    start = min(offered.values())
    per_second = {}
    for c, t in offered.items():
        second = int(t - start)
        o, r = per_second.get(second, (0, 0))
        per_second[second] = (o + 1, r + (1 if c in rejected else 0))
    print("per second (offered/503): " + " ".join(f"{o}/{r}" for _, (o, r) in sorted(per_second.items())))
    return 0


def cmd_histogram(args):
    """Quantiles of a Prometheus histogram summed over the given /metrics files, as bucket upper bounds."""
    buckets = {}
    for path in args.files:
        with open(path) as f:
            for line in f:
                if line.startswith(args.name + "_bucket{") and "warm-up-" not in line:  # not the start-up warm-up
                    le = line.split('le="', 1)[1].split('"', 1)[0]
                    bound = float("inf") if le == "+Inf" else float(le)
                    buckets[bound] = buckets.get(bound, 0.0) + float(line.rsplit(" ", 1)[1])
    if not buckets or buckets[max(buckets)] == 0:
        print(f"{args.name}: no samples")
        return 1
    total = buckets[max(buckets)]
    parts = []
    for q in (50, 90, 99, 99.9):
        bound = next(b for b in sorted(buckets) if buckets[b] >= total * q / 100.0)
        parts.append(f"p{q:g} <= {bound * 1000:g} ms" if bound != float("inf") else f"p{q:g} > last bucket")
    print(f"{args.name}: {int(total)} samples; " + ", ".join(parts))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("stat")
    p.add_argument("file")
    p.add_argument("--expect", type=int)
    p.set_defaults(func=cmd_stat)
    p = sub.add_parser("rtt")
    p.add_argument("files", nargs="+")
    p.add_argument("--rtd", default="invite")
    p.set_defaults(func=cmd_rtt)
    p = sub.add_parser("window")
    p.add_argument("files", nargs="+")
    p.add_argument("--window", type=float, default=1.0)
    p.add_argument("--max", type=int, required=True)
    p.add_argument("--offered-seconds", type=float)
    p.add_argument("--offered", nargs="*", default=[], help="UAC logs with OFFER lines (uac-503.xml)")
    p.add_argument("--min-ratio", type=float, help="fail when admitted < this x strict maximum")
    p.add_argument("--min-optimum-ratio", type=float, help="fail when admitted < this x greedy optimum")
    p.add_argument("--jitter-ms", type=float, default=0,
                   help="judge windows this much shorter (the jitter between admission and the wire forgiven)")
    p.set_defaults(func=cmd_window)
    p = sub.add_parser("gaps")
    p.add_argument("files", nargs="+")
    p.add_argument("--min-ms", type=float, default=19.0)
    p.add_argument("--target", type=float, default=0.99)
    p.set_defaults(func=cmd_gaps)
    p = sub.add_parser("admissions")
    p.add_argument("zset")
    p.add_argument("carrier")
    p.add_argument("--offered", nargs="+", required=True)
    p.add_argument("--window", type=float, default=1.0)
    p.add_argument("--max", type=int, default=100)
    p.set_defaults(func=cmd_admissions)
    p = sub.add_parser("histogram")
    p.add_argument("name")
    p.add_argument("files", nargs="+")
    p.set_defaults(func=cmd_histogram)
    p = sub.add_parser("outcomes")
    p.add_argument("files", nargs="+")
    p.set_defaults(func=cmd_outcomes)
    args = parser.parse_args()
    sys.exit(args.func(args))


if __name__ == "__main__":
    main()
