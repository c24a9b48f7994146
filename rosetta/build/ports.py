"""Loopback TCP ports for the processes the build starts (a TCP kernel's five sockets, a data-parallel job's
coordinator and workers), chosen where nothing else on the machine is handed them in the meantime.

The usual way (bind to port 0, read the port, close it, pass the number on: jupyter_client's port cache and
the old `free_ports`) takes a port of Linux's ephemeral range, closed again until the kernel binds it. In
between, any other process's bind(0) (gloo's pairs, a parameter server, another build's kernels) or outgoing
connection may be handed it, and the kernel exits before it answers kernel_info. Deno's kernel said so:
"AddrInUse: Address already in use (os error 98)" (seen in CI as "Kernel died before replying to
kernel_info"; benchmarks/kernel_starts.py makes it happen). Ports below the ephemeral range are never handed
out implicitly; the build checks that nothing holds each one and does not hand one out twice in a minute.
"""
from __future__ import annotations

import random
import socket
import threading
import time
from pathlib import Path

ADDRESS = "127.0.0.1"
RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
SPAN = 12_000                 # how far below the ephemeral range the build's ports are drawn from
HELD_SECONDS = 60.0           # a port handed out is not handed out again this soon (its process binds it first)


def ephemeral_range(path: Path = RANGE_FILE) -> tuple[int, int]:
    """Linux's ephemeral port range (32768 to 60999 unless the machine says otherwise)."""
    try:
        low, high = (int(word) for word in path.read_text().split())
        return low, high
    except (OSError, ValueError):
        return 32768, 60999


def build_range(path: Path = RANGE_FILE) -> range:
    low, _ = ephemeral_range(path)
    return range(max(1024, low - SPAN), low)


def bindable(port: int, address: str = ADDRESS) -> bool:
    """Nothing listens on the port now (nor holds it bound): a bind without SO_REUSEADDR succeeds."""
    with socket.socket() as probe:
        try:
            probe.bind((address, port))
        except OSError:
            return False
    return True


class PortPool:
    """Hands out ports of `candidates` that are free now and were not handed out in the last `held` seconds
    (from any thread of the build: jobs run side by side)."""

    def __init__(self, candidates: range, held: float = HELD_SECONDS, clock=time.monotonic):
        self.candidates, self.held, self.clock = candidates, held, clock
        self.handed: dict[int, float] = {}
        self.lock = threading.Lock()

    def take(self, count: int) -> list[int]:
        with self.lock:
            now = self.clock()
            self.handed = {port: when for port, when in self.handed.items() if now - when < self.held}
            chosen: list[int] = []
            for port in random.sample(self.candidates, len(self.candidates)):
                if port not in self.handed and bindable(port):
                    chosen.append(port)
                    self.handed[port] = now
                    if len(chosen) == count:
                        return chosen
            raise RuntimeError(f"no {count} free ports between {self.candidates.start} and "
                               f"{self.candidates.stop - 1} on {ADDRESS} (the build's range, below Linux's "
                               f"ephemeral ports)")


POOL = PortPool(build_range())


def take(count: int) -> list[int]:
    """`count` distinct loopback ports for the build's processes to bind."""
    return POOL.take(count)
