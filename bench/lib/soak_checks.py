#!/usr/bin/env python3
"""The checks of bench/soak.sh, run on its work directory after the load.

    soak_checks.py WORK --peer-max N --carrier-cps N --carrier-burst N --lease-s S --call-max-s S --load-s S
                   [--svg FILE] [--summary FILE]

Reads what soak.sh left in WORK: the faults as they happened (faults.tsv), the callers' call logs (START/END
lines of bench/sipp/soak-uac.xml) and error logs, the carriers' arrivals (ARRIVE lines of soak-uas.xml), every
gateway's call records (records-*.jsonl) and log, what-if's report on those records (what-if.json), the leases in
Redis (samples/leases*.txt), heap after GC and open descriptors (samples/heap_fds.tsv) and the gateways' metrics
after the calls ended. Prints one PASS/FAIL
line per check with its figures, then per fault kind the calls failed, the calls over a limit and the time to
recover; writes a timeline (calls per second, faults marked) as SVG. Exit status 1 when a check failed.

Bounds (README, "Pacing" and "What a Redis failover can lose"): a rolling window of a peer (on Redis's clock) never
holds more than its limit, except a window that overlaps a failover or a restart of Redis empty, which may hold up
to twice it. A carrier's window of W seconds holds at most burst + cps x (W + L) calls, L being the latest a call
leaves after its slot (the larger of burst slots and 50 ms; a call later than that takes a new slot), except that
the span of a Redis loss, extended by the carrier's max-wait (the calls held across it), may hold up to twice it.
The carriers' own arrival times (SIPp's) are also excused over a stall of the whole machine, which stops SIPp too:
it reads what arrived meanwhile in a bunch.
"""
import argparse
import base64
import collections
import datetime
import glob
import hashlib
import json
import os
import re
import statistics
import struct
import sys

LOSS_KINDS = ("failover", "redis-empty", "failover-unplanned")
# A pass of soak_sampler.py comes every 250 ms; a gap this long means the whole machine stalled (nothing ran),
# which stalls every gateway at once.
STALL_GAP_S = 0.6
MAX_WAIT_S = 2  # the longest max-wait of bench/sipp/conf-soak's carriers
# Between the pacing slot and SIPp's time stamp of the arrival at the carrier (SIPp on shared cores reads late
# and in bunches); the gateway's own send time (attempts[].sentAt) is within a few ms of the slot.
ARRIVAL_JITTER_S = 0.05
SENT_JITTER_S = 0.01
# The latest a call leaves after its slot is the larger of its carrier's burst slots and this (TimerCarrierPacer).
MIN_LATE_RELEASE_S = 0.05
RECOVERY_QUIET_S = 5


def epoch(iso):
    return datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


CALL_ID = re.compile(rb"\r\n(?:call-id|i)[ \t]*:[ \t]*([^\r\n]+)", re.IGNORECASE)


def read_pcap_udp(path):
    """(time, destination port, payload) of each IPv4 UDP datagram in a pcap file of the loopback (Ethernet or
    Linux cooked framing), in capture order."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return
    magic = data[:4]
    endian = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    scale = 1e-9 if magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d") else 1e-6
    link = struct.unpack(endian + "I", data[20:24])[0]
    frame = {1: 14, 113: 16}[link]
    pos = 24
    while pos + 16 <= len(data):
        sec, frac, captured, _ = struct.unpack(endian + "IIII", data[pos:pos + 16])
        packet = data[pos + 16:pos + 16 + captured]
        pos += 16 + captured
        ip = packet[frame:]
        if len(ip) < 28 or ip[0] >> 4 != 4 or ip[9] != 17:
            continue
        udp = ip[(ip[0] & 15) * 4:]
        yield sec + frac * scale, struct.unpack(">H", udp[2:4])[0], udp[8:]


def call_member(callid, from_tag, cseq):
    """The lease member of a call (limit.internal.CallMember): the first 12 bytes of SHA-256 of its key."""
    digest = hashlib.sha256(f"{callid}\n{from_tag}\n{cseq}".encode()).digest()[:12]
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


class Soak:
    def __init__(self, work, args):
        self.work, self.args = work, args
        self.t0 = float(open(os.path.join(work, "t0")).read())
        self.t_end = float(open(os.path.join(work, "t_end")).read())
        self.faults = []
        for line in open(os.path.join(work, "faults.tsv")):
            kind, start, end, detail = line.rstrip("\n").split("\t")
            self.faults.append((kind, float(start), float(end), detail))
        self.unplanned_failovers()
        self.machine_stalls()
        self.gw_ports = dict(line.split() for line in open(os.path.join(work, "gw.ports")))
        self.kills = [(s, e) for k, s, e, _ in self.faults if k == "gateway-kill"]
        self.silent = [(s, e) for k, s, e, _ in self.faults if k == "carrier-silent"]
        self.loss_spans = [(s, e) for k, s, e, _ in self.faults if k in LOSS_KINDS]
        self.carrier_spans = [(s, e + MAX_WAIT_S) for k, s, e, _ in self.faults if k in LOSS_KINDS]
        self.machine_stall_spans = [(s, e) for k, s, e, _ in self.faults if k == "machine-stall"]
        self.read_calls()
        self.read_records()
        self.read_arrivals()
        self.read_wire()
        self.results = []

    # ---- inputs ----------------------------------------------------------------------------------------------
    def machine_stalls(self):
        """Gaps in soak_sampler.py's passes (Redis's time of each) outside the faults: the machine stalled."""
        path = os.path.join(self.work, "samples", "windows.txt")
        reads = collections.defaultdict(set)
        for line in open(path) if os.path.exists(path) else []:
            f = line.split()
            if len(f) in (2, 4):  # a read of the window, and an entry it held
                reads[f[1]].add(int(f[0]) / 1000)
        passes = sorted(set().union(*reads.values()))
        # A 1 s window's entry lives 1 s: between two reads of a peer's window further apart, an admission may go
        # unseen. Each window is timed by its own reads: a cluster's masters are read one after the other.
        self.blind_spans = collections.defaultdict(list)
        for key, times in reads.items():
            times = sorted(times)
            peer = key.split("{p:", 1)[1].split("}", 1)[0]
            self.blind_spans[peer] += [(a, b) for a, b in zip(times, times[1:]) if b - a > 1.0]
        spans = [(s - 1, e + 1) for k, s, e, _ in self.faults if k != "reload"]
        for a, b in zip(passes, passes[1:]):
            if b - a > STALL_GAP_S and self.t0 <= a and not self.overlaps(a, b, spans):
                self.faults.append(("machine-stall", a, b, "no sampler pass for %.1f s" % (b - a)))
        self.faults.sort(key=lambda f: f[1])

    def unplanned_failovers(self):
        """Failovers Sentinel or the cluster made on its own, outside a planned one: a stalled machine can make
        them give up on a master that was only slow. They are losses like the planned ones, and last until the old
        master is made a replica: until then gateways still on it write there, and those writes are lost. Sentinel
        logs +odown ... +switch-master ... +convert-to-slave; in a cluster the replica that wins the election logs
        it, after the master went unanswered for the node timeout, and the old master learns of it at once when
        it is up."""
        topology = os.path.join(self.work, "topology")
        if os.path.exists(topology):
            self.down_after_s = int(open(topology).read().split()[1]) / 1000
            events = self.redis_log_events(glob.glob(os.path.join(self.work, "redis-*.log")),
                                           {"Failover election won": "switch-master"})
        else:
            conf = open(os.path.join(self.work, "sentinel.conf")).read()
            self.down_after_s = int(re.search(r"down-after-milliseconds \S+ (\d+)", conf).group(1)) / 1000
            events = self.redis_log_events([os.path.join(self.work, "sentinel.log")],
                                           {"+odown ": "odown", "+switch-master ": "switch-master",
                                            "+convert-to-slave ": "convert-to-slave"})
        down, unplanned = None, None
        for t, event in events:
            if event == "odown":
                down = t - self.down_after_s  # unanswered since then: what it took meanwhile may be lost
            elif event == "switch-master":
                if not any(k == "failover" and s - 1 <= t <= e + 1 for k, s, e, _ in self.faults):
                    unplanned = [down or t - self.down_after_s - 1, t + (0 if down else 1)]
                    self.faults.append(("failover-unplanned", unplanned, None, "a failover Redis made on its own"))
                down = None
            elif unplanned and t > unplanned[1]:
                unplanned[1] = t
                unplanned = None
        self.faults = sorted(((k, s[0], s[1], d) if e is None else (k, s, e, d) for k, s, e, d in self.faults),
                             key=lambda f: f[1])

    @staticmethod
    def redis_log_events(paths, names):
        """[(time, event)] of the Redis log lines (Sentinel's or a node's) holding one of `names`, in time order"""
        stamp = re.compile(r"(\d+ \w{3} \d{4} \d\d:\d\d:\d\d\.\d+) [#*] (.*)")
        events = []
        for path in paths:
            for line in open(path, errors="replace") if os.path.exists(path) else []:
                m = stamp.search(line)
                event = m and next((e for text, e in names.items() if m.group(2).startswith(text)), None)
                if event:
                    t = datetime.datetime.strptime(m.group(1), "%d %b %Y %H:%M:%S.%f").replace(
                        tzinfo=datetime.timezone.utc).timestamp()
                    events.append((t, event))
        return sorted(events)

    def read_calls(self):
        """calls[Call-ID] = {start, end, outcome, caller}; failure times from the callers' error logs."""
        self.calls = {}
        for path in glob.glob(os.path.join(self.work, "*_calls.log")):
            caller = os.path.basename(path)[:-len("_calls.log")]
            for line in open(path, errors="replace"):
                f = line.split()
                if len(f) < 5 or f[0] not in ("START", "END"):
                    continue
                t, cid = float(f[3]), f[4]
                if f[0] == "START":
                    self.calls[cid] = {"start": t, "end": None, "outcome": None, "caller": caller, "failed_at": None}
                elif cid in self.calls:
                    self.calls[cid]["end"], self.calls[cid]["outcome"] = t, " ".join(f[5:]) or "?"
        pattern = re.compile(r"(\d{10}\.\d+): .*?Call-I[dD][: ]+'?([^' ,\n]+)")
        for path in glob.glob(os.path.join(self.work, "*_errors.log")):
            for m in pattern.finditer(open(path, errors="replace").read()):
                call = self.calls.get(m.group(2))
                if call and call["failed_at"] is None:
                    call["failed_at"] = float(m.group(1))

    def read_records(self):
        self.records = collections.defaultdict(list)
        # records-NAME.jsonl and the files the gateway rotated it to (records-NAME.jsonl.1, .2, ...)
        for path in glob.glob(os.path.join(self.work, "records-*.jsonl*")):
            gateway = re.sub(r"\.jsonl(\.\d+)?$", "", os.path.basename(path)[len("records-"):])
            for line in open(path):
                rec = json.loads(line)
                rec["_process"] = gateway
                self.records[rec["callId"]].append(rec)

    def read_arrivals(self):
        """arrivals[carrier] = sorted [(time, Call-ID, gateway port)]"""
        self.arrivals = {}
        for carrier in ("ca", "cb"):
            rows = []
            path = os.path.join(self.work, f"{carrier}_invites.log")
            for line in open(path, errors="replace") if os.path.exists(path) else []:
                f = line.split()
                if len(f) >= 6 and f[0] == "ARRIVE":
                    rows.append((float(f[3]), f[4], f[5].rsplit(":", 1)[-1]))
            self.arrivals[carrier] = sorted(rows)

    def read_wire(self):
        """wire[carrier] = sorted times of each call's first INVITE to the carrier as tcpdump saw it cross the
        loopback (the kernel's time of the send); None without a whole capture (no tcpdump, or packets dropped)."""
        self.wire, self.wire_note = None, "no capture"
        path, log = (os.path.join(self.work, name) for name in ("carriers.pcap", "tcpdump.log"))
        if not os.path.exists(path):
            return
        dropped = re.search(r"(\d+) packets? dropped by kernel", open(log).read()) if os.path.exists(log) else None
        if dropped is None or int(dropped.group(1)):
            self.wire_note = "capture incomplete: " + (dropped.group(0) if dropped else "tcpdump did not finish")
            return
        carriers = {int(port): name for name, port in (line.split() for line in open(
            os.path.join(self.work, "carriers.ports")))}
        first = {}
        for t, port, payload in read_pcap_udp(path):
            m = CALL_ID.search(payload)
            if m and port in carriers:
                # a call that fails over reaches the next carrier with the same Call-ID
                first.setdefault((carriers[port], m.group(1).decode(errors="replace").strip()), t)
        self.wire = {name: sorted(t for (c, _), t in first.items() if c == name) for name in carriers.values()}
        self.wire_note = "on the wire"

    # ---- helpers ---------------------------------------------------------------------------------------------
    def check(self, name, ok, figures):
        self.results.append((name, ok, figures))
        print(f"{'PASS' if ok else 'FAIL'} {name}: {figures}", flush=True)

    @staticmethod
    def overlaps(a, b, spans):
        return any(a <= e and b >= s for s, e in spans)

    def over_limit(self, times, window, limit, spans):
        """Events beyond `limit` in a rolling `window`: [(time, count in the window ending there)], and the most
        in any window, split into windows clear of the spans (of a documented loss) and windows overlapping one."""
        over, most_clear, most_loss = [], 0, 0
        lo = 0
        for i, t in enumerate(times):
            while times[lo] <= t - window:
                lo += 1
            n = i - lo + 1
            if self.overlaps(times[lo], t, spans):
                most_loss = max(most_loss, n)
            else:
                most_clear = max(most_clear, n)
            if n > limit:
                over.append((t, n))
        return over, most_clear, most_loss

    # ---- checks ----------------------------------------------------------------------------------------------
    def admitted_by_peer(self):
        """Admission times per peer: every admitted record (invitedAt), and the calls that reached a carrier
        through a gateway killed before it could write their record (their arrival time)."""
        peers = collections.defaultdict(list)
        for cid, recs in self.records.items():
            for rec in recs:
                if rec["admission"] == "admitted":
                    peers[rec["peer"]].append((epoch(rec["invitedAt"]), cid))
        for cid, t in self.unrecorded_arrivals().items():
            peers["p" + cid.rsplit(".", 1)[-1]].append((t, cid))
        return {p: sorted(ts) for p, ts in peers.items()}

    @staticmethod
    def member(cid):
        """the CallMember of a SIPp call: From tag [pid]SIPpTag00[call_number], CSeq 1 (bench/sipp/soak-uac.xml)"""
        n, rest = cid.split("-", 1)
        return call_member(cid, f"{rest.split('@')[0]}SIPpTag00{n}", 1)

    def unrecorded_arrivals(self):
        first = {}
        for rows in self.arrivals.values():
            for t, cid, _ in rows:
                if cid not in self.records and cid in self.calls:
                    first[cid] = min(t, first.get(cid, t))
        return first

    def check_redis_windows(self):
        """Each peer's sliding log as the master held it (samples/windows.txt), on Redis's own clock. An entry of
        a call the gateway refused (Redis answered after redis.timeout, the policy refused it) is given back:
        only entries of calls not refused count (the warm-up's own peers, "~warm-up-...", not at all)."""
        entries = {}
        for line in open(os.path.join(self.work, "samples", "windows.txt")):
            f = line.split()
            if len(f) == 4 and ":{p:~" not in f[1]:
                entries[(f[1], f[2])] = float(f[3]) / 1e6
        self.window_members = {m for _, m in entries}
        refused = {self.member(cid) for cid, recs in self.records.items() if cid in self.calls
                   and all(r["admission"] != "admitted" for r in recs)}
        by_key = collections.defaultdict(list)
        given_back = 0
        for (key, member), t in entries.items():
            if member in refused:
                given_back += 1
            else:
                by_key[key].append(t)
        figures, ok, limit = [], True, self.args.peer_max
        self.peer_over = []
        for key, times in sorted(by_key.items()):
            window = int(key.rsplit(":", 1)[-1]) / 1000
            over, clear, loss = self.over_limit(sorted(times), window, limit, self.loss_spans)
            bad = [o for o in over if not self.overlaps(o[0] - window, o[0], self.loss_spans) or o[1] > 2 * limit]
            ok &= not bad
            self.peer_over += [t for t, _ in over]
            figures.append(f"{key.rsplit(':', 2)[-2]} {len(times)} admissions, most in any {window:g} s {clear} "
                           f"(max {limit}), {loss} in windows over a Redis loss (bound {2 * limit})")
        figures.append(f"{given_back} entries of calls refused after all left out")
        self.check("peer windows in Redis", ok and bool(by_key), "; ".join(figures))

    def check_peers(self):
        """Every admission the records (and the arrivals of calls whose gateway died) show is in Redis's sliding
        log, unless it came just before a Redis loss: no call was admitted around the limit."""
        spans = [(s - 1, e) for s, e in self.loss_spans]
        # the INVITE's arrival comes before its admission by its wait for a worker and Redis: up to 1 s here
        unseen, unseen_loss, unseen_blind, n, most = [], 0, 0, 0, []
        for peer, rows in sorted(self.admitted_by_peer().items()):
            blind = [(a - 1, b) for a, b in self.blind_spans[peer]]
            for t, cid in rows:
                n += 1
                # a call without a record is timed by its arrival at the carrier: admitted up to max-wait before
                admitted_from = t - (MAX_WAIT_S if cid not in self.records else 0)
                if self.member(cid) not in self.window_members:
                    if self.overlaps(admitted_from, t, spans):
                        unseen_loss += 1
                    elif self.overlaps(admitted_from, t, blind):
                        unseen_blind += 1
                    else:
                        unseen.append(cid)
            _, clear, _ = self.over_limit([t for t, _ in rows], 1.0, self.args.peer_max, self.loss_spans)
            most.append(f"{peer} {clear}")
        self.check("every admission in Redis's windows", not unseen,
                   f"{n} admitted calls; {len(unseen)} missing from the sampled windows"
                   + (f" (e.g. {unseen[:3]})" if unseen else "")
                   + f", {unseen_loss} missing within 1 s before a Redis loss, {unseen_blind} admitted while the "
                   f"sampler read not their peer's window for over 1 s ({sum(map(len, self.blind_spans.values()))} such gaps); most admitted in any 1 s by INVITE "
                   f"arrival at the gateway (queueing before admission included, not a check): {', '.join(most)}")

    def check_carriers(self):
        cps, burst = self.args.carrier_cps, self.args.carrier_burst
        late_s = max(burst / cps, MIN_LATE_RELEASE_S)
        self.carrier_over = []
        figures, ok = [], True
        for carrier, rows in sorted(self.arrivals.items()):
            if self.wire is not None:
                # the kernel's send times: no reader's delay in them, nothing to forgive but a Redis loss
                times, jitter, spans = self.wire[carrier], SENT_JITTER_S, self.carrier_spans
            else:
                # a stopped carrier reads what queued while it was stopped only when it runs again
                late = [(s, e + 3) for s, e in self.silent] if carrier == "ca" else []
                times = [t for t, _, _ in rows if not any(s <= t <= e for s, e in late)]
                jitter, spans = ARRIVAL_JITTER_S, self.carrier_spans + self.machine_stall_spans
            window = 1.0 - jitter
            limit = int(burst + cps * (window + jitter + late_s))
            over, clear, loss = self.over_limit(times, window, limit, spans)
            bad = [o for o in over if not self.overlaps(o[0] - window, o[0], spans) or o[1] > 2 * limit]
            sent = sorted(epoch(a["sentAt"]) for recs in self.records.values() for rec in recs
                          for a in rec["attempts"] if a["carrier"] == carrier)
            window_s = 1.0 - SENT_JITTER_S
            limit_s = int(burst + cps * (window_s + SENT_JITTER_S + late_s))
            over_s, clear_s, loss_s = self.over_limit(sent, window_s, limit_s, self.carrier_spans)
            bad += [o for o in over_s if not self.overlaps(o[0] - window_s, o[0], self.carrier_spans)
                    or o[1] > 2 * limit_s]
            ok &= not bad
            self.carrier_over += [t for t, _ in over_s]
            where = (f"INVITEs on the wire (tcpdump; SIPp read {len(rows)})" if self.wire is not None
                     else f"arrivals read by SIPp ({self.wire_note})")
            excused = "a Redis loss" if self.wire is not None else "a Redis loss or a stall of the machine"
            figures.append(f"{carrier} {len(times)} {where}, most in any {window:.2f} s {clear} (bound burst + cps x "
                           f"({window + jitter:.2f} + {late_s:.3f}) = {limit}), {loss} over {excused} "
                           f"(bound {2 * limit}); by the gateways' send times, in any "
                           f"{window_s:.2f} s {clear_s} (bound {limit_s}) and {loss_s} over a Redis loss "
                           f"(bound {2 * limit_s})")
        self.check("carrier windows", ok, "; ".join(figures))

    def check_records(self):
        reached = {cid: port for rows in self.arrivals.values() for _, cid, port in rows}
        unknown = [cid for cid in reached if cid not in self.calls]
        dup = [cid for cid in reached if len(self.records.get(cid, [])) > 1]
        dup_refused = [cid for cid, recs in self.records.items() if len(recs) > 1 and cid not in reached]
        lost_with_kill, missing = [], []
        gw2 = self.gw_ports["gw2"]
        for cid, port in reached.items():
            if cid in self.records or cid not in self.calls:
                continue
            t = self.calls[cid]["start"]
            if port == gw2 and any(t <= s for s, _ in self.kills):
                lost_with_kill.append(cid)
            else:
                missing.append(cid)
        bad = dup + dup_refused + missing + unknown
        self.check("one record per call", not bad,
                   f"{len(reached)} calls reached a carrier; {len(dup)} with two records or more, {len(missing)} "
                   f"without a record, {len(lost_with_kill)} without one because their gateway was killed "
                   f"(SIGKILL) before they ended, {len(unknown)} not placed by a caller; of the calls refused at "
                   f"once (shed, or refused before reaching a carrier; copies of their INVITEs included), "
                   f"{len(dup_refused)} with two records or more"
                   + (f"; e.g. {bad[:3]}" if bad else ""))

    def check_leases(self):
        ends, members = {}, {}
        for cid, call in self.calls.items():
            members[self.member(cid)] = cid
            recs = self.records.get(cid)
            if recs:
                ends[cid] = max(epoch(r["endedAt"]) for r in recs)
            else:
                kill = [s for s, _ in self.kills if s >= call["start"]]
                ends[cid] = min(kill) if kill else (call["end"] or call["failed_at"])
        stale, unknown, counted, snapshots = [], [], 0, set()
        lease_s = self.args.lease_s
        for name in ("leases.txt", "leases-final.txt"):
            path = os.path.join(self.work, "samples", name)
            for line in open(path) if os.path.exists(path) else []:
                f = line.split()
                if len(f) != 4:
                    continue
                now, deadline = int(f[0]) / 1000, float(f[3]) / 1000
                snapshots.add(f[0])
                if deadline <= now:
                    continue  # lapsed: no longer counts, dropped by the next script that reads the set
                counted += 1
                cid = members.get(f[2].rsplit("@", 1)[0])
                end = ends.get(cid) if cid else None
                if cid is None:
                    unknown.append(f[2])
                elif end is not None and end < now - lease_s - 0.5:
                    stale.append((cid, round(now - end, 1)))
        final = [line for line in open(os.path.join(self.work, "samples", "leases-final.txt"))
                 if len(line.split()) == 4 and float(line.split()[3]) > float(line.split()[0])]
        self.check("no lease outlives its call", not stale and not unknown and not final,
                   f"{len(snapshots)} snapshots, {counted} live leases seen; {len(stale)} of calls ended more than "
                   f"{lease_s} s before (worst {max((s[1] for s in stale), default=0)} s), {len(unknown)} of no "
                   f"call placed, {len(final)} left {lease_s} s after the last call")

    def check_metrics(self):
        left = {}
        for path in sorted(glob.glob(os.path.join(self.work, "metrics-end-gw*.txt"))):
            gw = os.path.basename(path)[len("metrics-end-"):-4]
            for line in open(path):
                m = re.match(r"(trunkgate_sip_(dialogs|transactions_in_flight|stack_transactions))(\{[^}]*\})? (\S+)",
                             line)
                if m:
                    left[f"{gw} {m.group(2)}"] = float(m.group(4))
        self.check("no dialog or transaction left", len(left) == 6 and not any(left.values()),
                   ", ".join(f"{k}={v:g}" for k, v in sorted(left.items())) or "no metrics read")

    def check_flat(self):
        """Gateway 1 (never restarted): heap after a full GC and open descriptors with no call up, before the load
        and after the last call, within 10%, the heap also within 4 MiB: a first load and the faults load classes
        and fill bounded tables once (1.0-1.8 MiB over a 17 MiB baseline in 2-minute runs: classes, reflection
        data, the traffic history, buffer pool caches), while a leak of a few hundred bytes per call shows over a
        10-minute run's first and last fifth. In runs of 10 minutes or more also the medians of the first and the
        last fifth of the load (after the first calls' length), which shorter runs give as figures only: there
        the calls up at each sample sway the heap by more than 10%."""
        idle = [line.split() for line in open(os.path.join(self.work, "samples", "idle.tsv"))]
        if len(idle) != 2:
            self.check("heap and descriptors flat", False, f"{len(idle)} idle samples of gw1, not 2")
            return
        heap0, heap1 = (int(r[2]) * 1024 for r in idle)
        fd0, fd1 = (int(r[3]) for r in idle)
        ok = heap1 <= max(heap0 * 1.10, heap0 + 4 * 2**20) and fd1 <= fd0 * 1.10
        figures = (f"gw1 (never restarted) with no call up, before the load and after it: heap after GC "
                   f"{heap0 / 2**20:.1f} -> {heap1 / 2**20:.1f} MiB ({(heap1 / heap0 - 1) * 100:+.1f}%), open fds "
                   f"{fd0} -> {fd1} ({(fd1 / fd0 - 1) * 100:+.1f}%)")
        rows = [line.split() for line in open(os.path.join(self.work, "samples", "heap_fds.tsv"))]
        a, b = self.t0 + self.args.call_max_s, self.t0 + self.args.load_s
        fifth = (b - a) / 5
        samples = [(float(t), int(k) * 1024, int(f)) for t, name, k, f in rows if name == "gw1" and a <= float(t) <= b]
        first = [r for r in samples if r[0] < a + fifth]
        last = [r for r in samples if r[0] >= b - fifth]
        if first and last:
            h0, h1 = statistics.median(r[1] for r in first), statistics.median(r[1] for r in last)
            f0, f1 = statistics.median(r[2] for r in first), statistics.median(r[2] for r in last)
            under_load = h1 <= h0 * 1.10 and f1 <= f0 * 1.10
            if self.args.load_s >= 600:
                ok &= under_load
            figures += (f"; under load, first and last fifth ({len(first)} and {len(last)} samples"
                        f"{'' if self.args.load_s >= 600 else ', not checked in a run this short'}): heap "
                        f"{h0 / 2**20:.1f} -> {h1 / 2**20:.1f} MiB ({(h1 / h0 - 1) * 100:+.1f}%), fds {f0:g} -> {f1:g}")
        elif self.args.load_s >= 600:
            ok = False
            figures += f"; too few samples under load ({len(samples)})"
        self.check("heap and descriptors flat", ok, figures)

    def check_logs(self):
        bad = []
        for path in sorted(glob.glob(os.path.join(self.work, "gw*.log"))):
            for line in open(path, errors="replace"):
                if " ERROR " in line or line.startswith("\tat ") or re.search(r"^\S*(Exception|Error)\b", line):
                    bad.append(f"{os.path.basename(path)}: {line.strip()[:200]}")
        self.check("no error or stack trace in a gateway log", not bad,
                   f"{len(bad)} lines" + (": " + " | ".join(bad[:5]) if bad else ""))

    def check_what_if(self):
        """what-if over the records under the soak's own configuration (what-if.json): each call whose decision
        differs named why by the records (a fault), none put down to another configuration."""
        report = json.load(open(os.path.join(self.work, "what-if.json")))
        replayed = sum(p["offered"] for p in report["peers"].values())
        same = sum(p["sameDecision"] for p in report["peers"].values())
        unnamed = sum(n for why, n in report["differencesBy"].items() if why.startswith("no cause in the records"))
        whys = "; ".join(f"{n}: {re.split(r' [(]|: ', why)[0]}" for why, n in sorted(report["differencesBy"].items()))
        self.check("what-if names why each differing call differs", replayed > 0 and not unnamed
                   and not report["brokenCount"],
                   f"{same} of {replayed} decisions the same, {replayed - same} differ: {whys or 'none'}; "
                   f"{unnamed} without a cause, {report['brokenCount']} lines not call records")

    # ---- per fault ---------------------------------------------------------------------------------------------
    def outcome(self, cid, call):
        """ok, limited (refused by a limit, as asked), or failed"""
        out = call["outcome"]
        if out in ("answered", "cancelled"):
            return "ok"
        recs = self.records.get(cid, [])
        burst = call["caller"].startswith("burst")
        if out == "refused":
            adm = recs[0]["admission"] if recs else None
            if adm == "rejected" or (burst and adm == "shed"):
                return "limited"
        return "failed"

    def per_fault(self):
        self.failed = []
        for cid, call in self.calls.items():
            kind = self.outcome(cid, call)
            call["kind"] = kind
            if kind == "failed":
                self.failed.append(call["failed_at"] or call["end"] or call["start"])
        self.failed.sort()
        offered = collections.Counter(int(c["start"]) for c in self.calls.values())
        failed = collections.Counter(int(t) for t in self.failed)
        lines, spans = [], []
        starts = sorted(start for kind, start, _, _ in self.faults if kind != "reload")
        for kind, start, end, _ in self.faults:
            # recovered: the first of 5 s in a row with at most 1% failed, or (">") the next fault's start
            t = int(end)
            quiet = 0
            while t < self.t_end and quiet < RECOVERY_QUIET_S:
                quiet = quiet + 1 if failed[t] <= max(1, offered[t] // 100) else 0
                t += 1
            recovered = t - quiet
            later = [s for s in starts if s > start]
            cut = kind != "reload" and later and recovered > later[0]
            recovered = later[0] if cut else recovered
            spans.append((kind, start, max(recovered, end) + (0 if cut else 0.999), recovered, cut))

        def fault_of(x):
            """the fault that began last before x, if x is within its span; a reload only when no other is"""
            hits = [i for i, (_, start, stop, _, _) in enumerate(spans) if start <= x <= stop]
            hits = [i for i in hits if spans[i][0] != "reload"] or hits
            return max(hits, key=lambda i: spans[i][1]) if hits else None
        failed_by = collections.Counter(fault_of(x) for x in self.failed)
        over_by = collections.Counter(fault_of(x) for x in self.peer_over + self.carrier_over)
        by_kind = collections.defaultdict(lambda: [0, 0, 0, []])
        for i, (kind, start, stop, recovered, cut) in enumerate(spans):
            k = by_kind[kind]
            k[0] += 1
            k[1] += failed_by[i]
            k[2] += over_by[i]
            k[3].append(f"{'>' if cut else ''}{max(0.0, recovered - start) if failed_by[i] else 0.0:.0f}")
        for kind, (n, nf, over, rec) in by_kind.items():
            lines.append(f"fault {kind} x{n}: calls failed {nf}, calls over a limit {over}, time to recover "
                         f"{'/'.join(rec)} s")
        lines.append(f"calls failed outside any fault's span: {failed_by[None]}; calls over a limit outside: "
                     f"{over_by[None]}")
        for line in lines:
            print(line)
        self.fault_lines = lines

    # ---- chart -------------------------------------------------------------------------------------------------
    def svg(self, path):
        secs = int(self.t_end - self.t0) + 1
        series = {k: [0] * secs for k in ("offered", "ok", "limited", "failed")}
        for call in self.calls.values():
            i = int(call["start"] - self.t0)
            if 0 <= i < secs:
                series["offered"][i] += 1
                series[call["kind"]][i] += 1
        top = max(max(series["offered"]), 1)
        w, h, left, bottom = 1000, 320, 50, 40
        x = lambda s: left + (w - left - 10) * s / secs
        y = lambda v: h - bottom - (h - bottom - 20) * v / top
        colours = {"offered": "#999999", "ok": "#2a7d2a", "limited": "#d08a00", "failed": "#c81e1e"}
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" '
               f'font-size="11"><rect width="{w}" height="{h}" fill="white"/>']
        for i, (kind, start, end, _) in enumerate(self.faults):
            a, b = x(start - self.t0), max(x(end - self.t0), x(start - self.t0) + 2)
            colour = "#4060c0" if kind == "reload" else "#c040c0"
            out.append(f'<rect x="{a:.1f}" y="20" width="{b - a:.1f}" height="{h - bottom - 20}" fill="{colour}" '
                       f'fill-opacity="0.15"/><text x="{a + 2:.1f}" y="{14 + 10 * (i % 2)}" fill="{colour}">'
                       f'{kind}</text>')
        for kind, values in series.items():
            pts = " ".join(f"{x(s + 0.5):.1f},{y(v):.1f}" for s, v in enumerate(values))
            out.append(f'<polyline fill="none" stroke="{colours[kind]}" stroke-width="1.2" points="{pts}"/>')
        out.append(f'<line x1="{left}" y1="{h - bottom}" x2="{w - 10}" y2="{h - bottom}" stroke="black"/>')
        for s in range(0, secs, max(10, secs // 10 // 10 * 10)):
            out.append(f'<text x="{x(s):.1f}" y="{h - bottom + 14}" text-anchor="middle">{s}</text>')
        for v in (0, top // 2, top):
            out.append(f'<text x="{left - 4}" y="{y(v) + 4:.1f}" text-anchor="end">{v}</text>')
        out.append(f'<text x="{left}" y="{h - 6}">seconds since the load started; calls per second by start: '
                   + ", ".join(f'<tspan fill="{c}">{k}</tspan>' for k, c in colours.items())
                   + '; shaded: faults (blue: reloads)</text></svg>')
        with open(path, "w") as f:
            f.write("\n".join(out) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("work")
    for name in ("peer-max", "carrier-cps", "carrier-burst", "lease-s", "call-max-s", "load-s"):
        p.add_argument("--" + name, type=float, required=True)
    p.add_argument("--svg")
    p.add_argument("--summary")
    args = p.parse_args()
    args.peer_max, args.carrier_cps, args.carrier_burst = int(args.peer_max), int(args.carrier_cps), int(args.carrier_burst)
    soak = Soak(args.work, args)
    print(f"calls placed {len(soak.calls)}, records {sum(len(r) for r in soak.records.values())}, "
          f"arrivals ca {len(soak.arrivals['ca'])} cb {len(soak.arrivals['cb'])}, faults {len(soak.faults)}")
    for check in (soak.check_redis_windows, soak.check_peers, soak.check_carriers, soak.check_records, soak.check_leases, soak.check_metrics,
                  soak.check_flat, soak.check_logs, soak.check_what_if):
        try:
            check()
        except (OSError, ValueError, KeyError, ZeroDivisionError) as e:
            soak.check(check.__name__[len("check_"):], False, f"could not be checked: {e!r}")
    soak.per_fault()
    if args.svg:
        soak.svg(args.svg)
        print(f"timeline: {args.svg}")
    if args.summary:
        with open(args.summary, "w") as f:
            for name, ok, figures in soak.results:
                f.write(f"{'PASS' if ok else 'FAIL'} {name}: {figures}\n")
            for line in soak.fault_lines:
                f.write(line + "\n")
    return 0 if all(ok for _, ok, _ in soak.results) else 1


if __name__ == "__main__":
    sys.exit(main())
