#!/usr/bin/env python3
"""Per-thread-group CPU and wake-ups of a process, between two snapshots of /proc/PID/task.

    thread_stats.py snapshot PID > before.json
    ... load ...
    thread_stats.py snapshot PID > after.json
    thread_stats.py diff before.json after.json --calls N

Threads are grouped by name with their numbers taken out (redis-results-1 and -2 are one group). A voluntary
context switch is a thread going to sleep (waiting for work, a lock, a timer); each one costs a wake-up later,
which on a virtual machine is far dearer than on bare metal. Per call, both say where a call's cost goes besides
the code itself.
"""
import argparse
import json
import os
import re
import subprocess
import sys


def java_names(pid):
    """Full thread names by OS thread id, from jcmd (/proc's comm keeps only 15 characters); {} if not a JVM."""
    try:
        dump = subprocess.run(["jcmd", str(pid), "Thread.print"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    names = {}
    for match in re.finditer(r'^"(.*?)" .*?nid=(0x[0-9a-f]+|\d+)', dump, re.MULTILINE):
        nid = match.group(2)
        names[str(int(nid, 16) if nid.startswith("0x") else int(nid))] = match.group(1)
    return names


def snapshot(pid):
    hz = os.sysconf("SC_CLK_TCK")
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                status = dict(line.split(":", 1) for line in f if ":" in line)
        except FileNotFoundError:
            continue  # the thread ended meanwhile
        threads[tid] = {
            "name": name,
            "cpu_ms": (int(fields[11]) + int(fields[12])) * 1000.0 / hz,
            "voluntary": int(status["voluntary_ctxt_switches"]),
            "involuntary": int(status["nonvoluntary_ctxt_switches"]),
        }
    # after the counters are read: the dump itself wakes threads of the JVM
    for tid, name in java_names(pid).items():
        if tid in threads:
            threads[tid]["name"] = name
    return threads


def group(name):
    return re.sub(r"[-#]?\d+", "-N", name)


def diff(before, after, calls):
    groups = {}
    for tid, now in after.items():
        then = before.get(tid, {"cpu_ms": 0, "voluntary": 0, "involuntary": 0})
        g = groups.setdefault(group(now["name"]), {"threads": 0, "cpu_ms": 0.0, "voluntary": 0, "involuntary": 0})
        g["threads"] += 1
        for key in ("cpu_ms", "voluntary", "involuntary"):
            g[key] += now[key] - then[key]
    rows = sorted(groups.items(), key=lambda item: -item[1]["voluntary"])
    per = max(calls, 1)
    print(f"{'thread group':50} {'threads':>7} {'cpu ms/call':>11} {'wakes/call':>10} {'preempted/call':>14}")
    total = {"cpu_ms": 0.0, "voluntary": 0, "involuntary": 0}
    for name, g in rows:
        if g["voluntary"] == 0 and g["cpu_ms"] == 0:
            continue
        for key in total:
            total[key] += g[key]
        print(f"{name[:50]:50} {g['threads']:7d} {g['cpu_ms'] / per:11.3f} {g['voluntary'] / per:10.2f} "
              f"{g['involuntary'] / per:14.2f}")
    print(f"{'all':50} {len(after):7d} {total['cpu_ms'] / per:11.3f} {total['voluntary'] / per:10.2f} "
          f"{total['involuntary'] / per:14.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    snap = sub.add_parser("snapshot")
    snap.add_argument("pid")
    d = sub.add_parser("diff")
    d.add_argument("before")
    d.add_argument("after")
    d.add_argument("--calls", type=int, required=True, help="calls completed between the snapshots")
    args = parser.parse_args()
    if args.command == "snapshot":
        json.dump(snapshot(args.pid), sys.stdout)
    else:
        with open(args.before) as b, open(args.after) as a:
            diff(json.load(b), json.load(a), args.calls)


if __name__ == "__main__":
    main()
