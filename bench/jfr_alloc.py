#!/usr/bin/env python3
"""KiB the JVM allocated per call over a JFR recording (its jdk.ThreadAllocationStatistics: every thread's
allocation counter at the recording's start and end).

  jfr_alloc.py RECORDING.jfr CALLS

A thread alive at both ends counts its counter's growth; one started meanwhile (one sample, after the start) its
whole counter. Prints "<KiB per call> <top threads as name=KiB per call,...>".
"""
import collections
import json
import subprocess
import sys


def main():
    recording, calls = sys.argv[1], int(sys.argv[2])
    out = subprocess.run(["jfr", "print", "--json", "--events", "jdk.ThreadAllocationStatistics", recording],
                         check=True, capture_output=True, text=True).stdout
    events = json.loads(out)["recording"]["events"]
    samples = collections.defaultdict(list)
    for e in events:
        v = e["values"]
        t = v["thread"] or {}
        samples[(t.get("javaThreadId"), t.get("javaName"))].append((v["startTime"], v["allocated"]))
    start = min(time for rows in samples.values() for time, _ in rows)
    by_thread = collections.Counter()
    for (tid, name), rows in samples.items():
        rows.sort()
        grown = rows[-1][1] - rows[0][1] if len(rows) > 1 else (rows[0][1] if rows[0][0] > start else 0)
        by_thread[(name or "?").rstrip("0123456789-/.:")] += grown
    total = sum(by_thread.values())
    top = ",".join(f"{name}={n / calls / 1024:.1f}" for name, n in by_thread.most_common(4))
    print(f"{total / calls / 1024:.1f} {top}")


if __name__ == "__main__":
    main()
