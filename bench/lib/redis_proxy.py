#!/usr/bin/env python3
"""A TCP proxy that delays and "loses" traffic, for bench/soak.sh's Redis faults.

    redis_proxy.py --control FILE LISTEN_PORT:TARGET_PORT [LISTEN_PORT:TARGET_PORT ...]

Each pair listens on 127.0.0.1:LISTEN_PORT and relays every connection to 127.0.0.1:TARGET_PORT. FILE holds the
current fault, re-read every 100 ms: "DELAY_MS LOSS" (e.g. "40 0" or "0 0.05"). Every chunk read in either
direction is held DELAY_MS (plus up to 20% of it at random); with probability LOSS it is held another 200-600 ms
more, what a TCP retransmission after a lost segment costs the reader. Order within a direction is kept, so the
bytes reach their reader intact, only late. A missing or unreadable file means no fault.
"""
import argparse
import asyncio
import random
import time

LOSS_DELAY_S = (0.2, 0.6)


class Fault:
    def __init__(self, path):
        self.path = path
        self.delay_s = 0.0
        self.loss = 0.0

    async def watch(self):
        while True:
            try:
                with open(self.path) as f:
                    delay_ms, loss = f.read().split()[:2]
                self.delay_s, self.loss = float(delay_ms) / 1000, float(loss)
            except (OSError, ValueError):
                self.delay_s, self.loss = 0.0, 0.0
            await asyncio.sleep(0.1)

    def hold_s(self):
        hold = self.delay_s * (1 + 0.2 * random.random()) if self.delay_s > 0 else 0.0
        if self.loss > 0 and random.random() < self.loss:
            hold += random.uniform(*LOSS_DELAY_S)
        return hold


async def pump(reader, writer, fault):
    """Copies reader to writer, each chunk released at its arrival plus its hold, never before the one ahead."""
    queue = asyncio.Queue()

    async def release():
        while True:
            due, data = await queue.get()
            if data is None:
                break
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()

    sender = asyncio.ensure_future(release())
    last_due = 0.0
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            last_due = max(last_due, time.monotonic() + fault.hold_s())
            queue.put_nowait((last_due, data))
    except (ConnectionError, OSError):
        pass
    queue.put_nowait((0.0, None))
    try:
        await sender
    except (ConnectionError, OSError):
        pass
    writer.close()


def serve(target_port, fault):
    async def handle(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target_port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pump(client_reader, server_writer, fault), pump(server_reader, client_writer, fault))
    return handle


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--control", required=True)
    parser.add_argument("pairs", nargs="+", help="LISTEN_PORT:TARGET_PORT")
    args = parser.parse_args()
    fault = Fault(args.control)
    servers = []
    for pair in args.pairs:
        listen, target = (int(p) for p in pair.split(":"))
        servers.append(await asyncio.start_server(serve(target, fault), "127.0.0.1", listen))
    print("proxy ready", flush=True)
    await fault.watch()


if __name__ == "__main__":
    asyncio.run(main())
