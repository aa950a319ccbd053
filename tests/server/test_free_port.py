"""Free ports for the servers tests start: under pytest-xdist each worker has its own slice of ports below the
ephemeral range, and one process never gets the same port twice."""

from __future__ import annotations

import socket

import pytest

from golfrace.store import embedded as redis_server
from golfrace.store.embedded import PORTS_BELOW_EPHEMERAL, free_port


def slice_of(worker: int) -> range:
    low, high = PORTS_BELOW_EPHEMERAL
    width = (high - low) // 8
    return range(low + worker * width, low + (worker + 1) * width)


def test_a_worker_draws_distinct_ports_from_its_own_slice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redis_server, "_handed_out", set())
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    ones = [free_port() for _ in range(40)]
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw2")
    twos = [free_port() for _ in range(40)]
    assert len(set(ones)) == 40 and all(p in slice_of(1) for p in ones)
    assert len(set(twos)) == 40 and all(p in slice_of(2) for p in twos)
    assert max(PORTS_BELOW_EPHEMERAL) < 32768  # below Linux's ephemeral ports


def test_a_port_in_use_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redis_server, "_handed_out", set())
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw3")
    held = []
    try:
        for port in slice_of(3)[:2700]:  # nearly the whole slice is taken by someone else
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                s.close()
                continue
            s.listen()
            held.append(s)
        taken = {s.getsockname()[1] for s in held}
        port = free_port()
        assert port not in taken
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.bind(("127.0.0.1", port))  # really free
    finally:
        for s in held:
            s.close()


def test_outside_xdist_the_kernel_picks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    port = free_port()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", port))
