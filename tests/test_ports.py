"""rosetta.build.ports: the build's loopback ports come from below Linux's ephemeral range, are free when handed
out, and are not handed out twice while their process may still be about to bind them. Real sockets."""
from __future__ import annotations

import socket

import pytest

from rosetta.build import ports


def test_the_ports_lie_below_the_ephemeral_range_and_differ(tmp_path):
    low, high = ports.ephemeral_range()
    taken = ports.take(5)
    assert len(set(taken)) == 5 and all(1024 <= port < low for port in taken), (taken, low)
    custom = tmp_path / "range"
    custom.write_text("40000\t50000\n")
    assert ports.ephemeral_range(custom) == (40000, 50000)
    assert ports.build_range(custom) == range(28000, 40000)
    custom.write_text("nonsense")
    assert ports.ephemeral_range(custom) == (32768, 60999), "Linux's default where the file says nothing"


def test_a_port_something_holds_is_not_handed_out():
    with socket.socket() as holder:
        holder.bind((ports.ADDRESS, 0))
        held = holder.getsockname()[1]
        pool = ports.PortPool(range(held, held + 1))
        with pytest.raises(RuntimeError, match=f"no 1 free ports between {held} and {held}"):
            pool.take(1)


def test_a_port_handed_out_is_not_handed_out_again_until_its_time_is_up():
    now = [0.0]
    with socket.socket() as probe:
        probe.bind((ports.ADDRESS, 0))
        free = probe.getsockname()[1]
    pool = ports.PortPool(range(free, free + 1), held=60, clock=lambda: now[0])
    assert pool.take(1) == [free]
    with pytest.raises(RuntimeError):
        pool.take(1)                          # handed out a moment ago: its kernel may not have bound it yet
    now[0] = 61.0
    assert pool.take(1) == [free]


def test_kernel_connections_on_tcp_use_those_ports_and_ipc_uses_socket_files(tmp_path):
    from rosetta.build.execute import kernel_config
    tcp = kernel_config("tcp", str(tmp_path))
    numbers = [tcp[f"{name}_port"] for name in ("shell", "iopub", "stdin", "hb", "control")]
    assert tcp["transport"] == "tcp" and tcp["ip"] == "127.0.0.1" and tcp["cache_ports"] is False
    assert len(set(numbers)) == 5 and all(port < ports.ephemeral_range()[0] for port in numbers)
    assert kernel_config("ipc", str(tmp_path)) == {"transport": "ipc", "ip": str(tmp_path / "k")}
