#!/usr/bin/env python3
"""bench/soak.sh's view of Redis during the run: what the masters hold, read straight from them (not through the
fault proxy).

    soak_sampler.py --nodes PROXY_PORT:NODE_PORT,... --prefix PREFIX [--sentinel PORT --master NAME] --out DIR
    soak_sampler.py ... --once leases > FILE

Every 250 ms it dumps each peer's exact sliding log (<prefix>:{p:ID}:peer:ID:<window ms>, members and their
admission times on Redis's clock) to DIR/windows.txt, and every 5 s every lease (<prefix>:*leases*) to
DIR/leases.txt, each line "REDIS_TIME_MS KEY MEMBER SCORE"; each window read, empty or not, also writes a line
"REDIS_TIME_MS KEY", so the checks know when each window was last seen. A window entry lives at least one window
length, so sampling at a quarter of a 1 s window sees every admission the master kept. Reads only. With --sentinel the
master is the node Sentinel names at each pass; without, the nodes are a Redis Cluster and every node that says
it is a master (ROLE) at each pass is read, each for the keys of its own slots, on its own clock. A pass a master
cannot answer is skipped.
"""
import argparse
import os
import socket
import sys
import time


class Redis:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=1)
        self.buf = b""

    def close(self):
        self.sock.close()

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind in (b"+", b":"):
            return rest.decode()
        if kind == b"-":
            raise RuntimeError(rest.decode())
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                chunk = self.sock.recv(65536)
                if not chunk:
                    raise ConnectionError("closed")
                self.buf += chunk
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return data.decode()
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        raise RuntimeError(f"unexpected reply {line!r}")

    def call(self, *commands):
        """sends the commands at once (a pipeline) and returns their replies"""
        out = b""
        for args in commands:
            out += b"*%d\r\n" % len(args)
            for a in args:
                a = str(a).encode()
                out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.sock.sendall(out)
        return [self._reply() for _ in commands]


def master_ports(args, nodes):
    """the node ports of the masters now: the one Sentinel names, or every cluster node whose ROLE is master"""
    if args.sentinel:
        s = Redis(args.sentinel)
        try:
            addr = s.call(("SENTINEL", "get-master-addr-by-name", args.master))[0]
        finally:
            s.close()
        return [nodes[int(addr[1])]] if addr and int(addr[1]) in nodes else []
    masters = []
    for port in nodes.values():
        try:
            r = Redis(port)
            try:
                if r.call(("ROLE",))[0][0] == "master":
                    masters.append(port)
            finally:
                r.close()
        except (OSError, RuntimeError):
            pass  # a node down is no master
    return masters


class Dumper:
    """Dumps the keys matching a pattern from every master. SCAN walks the whole keyspace, so the keys are looked
    for at every pass only in the first 10 s after the start and after the masters change (while the peers' calls
    create them on a new master), otherwise every `rescan_s` seconds; in between only their contents are read. A
    key once found is read at every pass until the masters change: a window whose calls all went stale is deleted
    and made again by the next admission under the same name, which a pass must not miss."""

    def __init__(self, args, nodes, pattern, rescan_s, mark_reads=False):
        self.args, self.nodes, self.pattern, self.rescan_s = args, nodes, pattern, rescan_s
        self.mark_reads = mark_reads
        self.keys, self.scanned, self.changed = {}, 0.0, time.monotonic()

    def dump(self, out):
        ports = master_ports(self.args, self.nodes)
        now = time.monotonic()
        if sorted(ports) != sorted(self.keys):
            self.keys, self.changed = {}, now
        rescan = now - self.scanned >= (0 if now - self.changed < 10 else self.rescan_s)
        if rescan:
            self.scanned = now
        for port in ports:
            try:
                if rescan or port not in self.keys:
                    known = self.keys.get(port, [])
                    self.keys[port] = known + [k for k in scan(port, self.pattern) if k not in known]
                dump_node(port, self.keys[port], out, self.mark_reads)
            except (OSError, RuntimeError, ValueError, TypeError):
                self.keys.pop(port, None)  # this master is down or changing: the next pass asks again


def scan(port, pattern):
    r = Redis(port)
    try:
        keys, cursor = [], "0"
        while True:
            cursor, batch = r.call(("SCAN", cursor, "MATCH", pattern, "COUNT", 1000))[0]
            keys += batch
            if cursor == "0":
                return keys
    finally:
        r.close()


def dump_node(port, keys, out, mark_reads):
    r = Redis(port)
    try:
        replies = r.call(("TIME",), *[("ZRANGE", k, 0, -1, "WITHSCORES") for k in keys])
    finally:
        r.close()
    now_ms = int(replies[0][0]) * 1000 + int(replies[0][1]) // 1000
    for key, members in zip(keys, replies[1:]):
        if mark_reads:
            out.write(f"{now_ms} {key}\n")
        for i in range(0, len(members or []), 2):
            out.write(f"{now_ms} {key} {members[i]} {members[i + 1]}\n")
    out.flush()


def every(period_s, dumper, out, parent=None):
    """dumps every period_s seconds; a child process stops once `parent` is gone"""
    while parent is None or os.getppid() == parent:
        started = time.monotonic()
        try:
            dumper.dump(out)
        except (OSError, RuntimeError, ValueError, TypeError):
            pass  # the master is down or changing: the next pass asks Sentinel again
        time.sleep(max(0.0, period_s - (time.monotonic() - started)))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sentinel", type=int, help="without it, the nodes are a cluster")
    p.add_argument("--master")
    p.add_argument("--nodes", required=True, help="PROXY_PORT:NODE_PORT,...")
    p.add_argument("--prefix", required=True)
    p.add_argument("--out")
    p.add_argument("--once", choices=["leases"])
    args = p.parse_args()
    nodes = {int(a): int(b) for a, b in (pair.split(":") for pair in args.nodes.split(","))}
    leases, windows = f"{args.prefix}:*leases*", f"{args.prefix}:{{p:*}}:peer:*"
    if args.once:
        Dumper(args, nodes, leases, 0).dump(sys.stdout)
        return
    # the leases (thousands at a high rate) in a process of their own: reading them must not delay a window pass
    parent = os.getpid()
    if os.fork() == 0:
        with open(f"{args.out}/leases.txt", "a") as lout:
            every(5, Dumper(args, nodes, leases, 5), lout, parent)
        return
    with open(f"{args.out}/windows.txt", "a") as wout:
        every(0.25, Dumper(args, nodes, windows, 2, mark_reads=True), wout)


if __name__ == "__main__":
    main()
