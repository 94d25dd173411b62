#!/usr/bin/env python3
"""CPU breakdown of an async-profiler profile in collapsed form with thread names (`collapsed,threads`).

  profile_breakdown.py PROFILE.collapsed [--cpu-ms MS --calls N] [--top 25]

Each sample is charged to one owner: GC and JIT by thread; otherwise the first frame from the leaf up that
belongs to a known library (JDK and kernel frames are charged to the library that called them, so a
StringBuilder inside the SIP parser counts as JAIN-SIP, a sendto() from a netty thread as Redis/netty).
With --cpu-ms and --calls (the process's CPU over the profiled interval and the calls completed in it), each
owner's share is also given in ms of CPU per call. Also prints the gateway's own packages' shares (the package of
the io.trunkgate frame nearest the leaf), the hottest leaf frames and, per owner, its hottest frames (the frame that
decided the owner).
"""
import argparse
import collections
import re

OWNERS = [  # (owner, frame prefix); first match from the leaf decides
    ("logging", ("ch/qos/logback", "org/slf4j", "io/trunkgate/logging", "io/trunkgate/sip/Slf4j", "gov/nist/core/CommonLogger",
                 "gov/nist/core/LogWriter", "gov/nist/javax/sip/stack/ServerLog")),
    ("JAIN-SIP", ("gov/nist", "javax/sip", "android/gov/nist")),
    ("Redis/Redisson/netty", ("org/redisson", "io/netty", "reactor/", "io/reactivex")),
    ("trunkgate (our code)", ("io/trunkgate",)),
    ("config/json libs", ("com/typesafe", "com/fasterxml")),
]


def owner_of(thread, frames):
    t = thread.lower()
    if t.startswith("gc thread") or t.startswith("g1 ") or "vm thread" in t or t.startswith("g1_"):
        return "GC and VM", thread
    if "compilerthre" in t or "compiler thread" in t:
        return "JIT compiler", thread
    for frame in reversed(frames):
        name = frame.replace(".", "/")
        for owner, prefixes in OWNERS:
            if name.startswith(prefixes):
                return owner, frame
    if any("GC" in f or "G1" in f for f in frames):
        return "GC and VM", frames[-1] if frames else thread
    return "JDK/JVM/kernel only", frames[-1] if frames else thread


LOG_FRAMES = ("ch/qos/logback", "org/slf4j", "io/trunkgate/logging/")


def our_package(frames):
    """Where a sample goes among the gateway's own packages: the package of its io.trunkgate frame nearest the leaf,
    or "log" when a logging frame (logback, slf4j, io.trunkgate.logging) is nearer, unless the call records called
    it; None for a sample with neither."""
    names = [f.replace(".", "/") for f in frames]
    for i in range(len(names) - 1, -1, -1):
        name = names[i]
        if name.startswith(LOG_FRAMES):
            return "records" if any(n.startswith("io/trunkgate/records/") for n in names[:i]) else "log"
        if name.startswith("io/trunkgate/"):
            # "io/trunkgate/sip/jainsip/Foo.bar" (a method) or "io.trunkgate.sip.Foo$$Lambda$9.0x7f_[i]" (an allocation)
            if "/" in frames[i]:
                package = frames[i].rsplit("/", 1)[0]
            else:
                package = re.sub(r"(\$\$Lambda.*|_\[i\])$", "", frames[i]).rsplit(".", 1)[0].replace(".", "/")
            return package[len("io/trunkgate/"):] or "io.trunkgate"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profile")
    ap.add_argument("--cpu-ms", type=float)
    ap.add_argument("--calls", type=int)
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    by_owner = collections.Counter()
    deciding = collections.defaultdict(collections.Counter)
    leaves = collections.Counter()
    threads = collections.Counter()
    packages = collections.Counter()
    total = 0
    for line in open(args.profile):
        line = line.rstrip("\n")
        if not line:
            continue
        stack, _, count = line.rpartition(" ")
        n = int(count)
        frames = stack.split(";")
        thread = ""
        if frames and frames[0].startswith("["):
            thread = re.sub(r"\s*tid=\d+\]$", "", frames[0][1:]).rstrip("]")
            frames = frames[1:]
        owner, frame = owner_of(thread, frames)
        by_owner[owner] += n
        deciding[owner][frame] += n
        leaves[frames[-1] if frames else thread] += n
        threads[re.sub(r"[-#_ ]?\d+$", "", thread)] += n
        package = our_package(frames)
        if package:
            packages[package] += n
        total += n
    per_call = args.cpu_ms is not None and args.calls
    print(f"# {total} samples" + (f"; {args.cpu_ms:.0f} ms CPU over {args.calls} calls = "
                                   f"{args.cpu_ms / args.calls:.3f} ms per call" if per_call else ""))
    print("# by owner (share of samples" + (", ms of CPU per call)" if per_call else ")"))
    for owner, n in by_owner.most_common():
        extra = f"  {n / total * args.cpu_ms / args.calls:.3f} ms" if per_call else ""
        print(f"  {owner:<24} {100.0 * n / total:5.1f}%{extra}")
    print("# by thread (share of samples)")
    for thread, n in threads.most_common(12):
        print(f"  {thread:<32} {100.0 * n / total:5.1f}%")
    print("# the gateway's own packages (the io.trunkgate frame nearest the leaf; log: logback, slf4j and"
          " io.trunkgate.logging unless records called them)" + (", ms of CPU per call" if per_call else ""))
    for package, n in packages.most_common(16):
        extra = f"  {n / total * args.cpu_ms / args.calls:.3f} ms" if per_call else ""
        print(f"  {package:<24} {100.0 * n / total:5.2f}%{extra}")
    print(f"# hottest leaf frames (self time), top {args.top}")
    for frame, n in leaves.most_common(args.top):
        print(f"  {100.0 * n / total:5.1f}%  {frame}")
    for owner, _ in by_owner.most_common():
        print(f"# {owner}: the frames that decided it, top 8")
        for frame, n in deciding[owner].most_common(8):
            print(f"  {100.0 * n / total:5.1f}%  {frame}")


if __name__ == "__main__":
    main()
