"""Players that resume by themselves (as the web client does), and checks of what the cluster stored."""

from __future__ import annotations

import asyncio
import itertools
import time
from dataclasses import dataclass, field
from typing import Any

from golfrace.engine import GameCode, parse_token, replay
from golfrace.store.connection import cluster_client
from golfrace.store.game_codec import decode_state
from golfrace.store.keys import game_key
from golfrace_client.client import Client, ClientClosed

T = 10.0
RESEND = {"unavailable", "busy", "internal"}
"""Errors after which the same seq is sent again (the web client's RESEND_CODES)."""
PAUSE_S = 0.05


@dataclass
class Ack:
    seq: int
    v: int
    at: float


@dataclass
class Player:
    """One solo game through the balancer. ``unavailable`` → the same seq again after a pause (``Client.act``
    does so by itself until its timeout); a closed connection → a new one (same token and sid: same seq
    space), ``open`` again, the same seq again."""

    url: str
    name: str
    client: Client | None = None
    clients: list[Client] = field(default_factory=list)
    game: str = ""
    code: str = ""
    acks: list[Ack] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    reconnects: int = 0
    seq: int = 0

    async def start(self, code: str | None = None) -> Player:
        self.client = await self._connect()
        view = await self.client.new(code=code, timeout=T)
        self.game = view.game
        return self

    async def _connect(self) -> Client:
        token = self.client.token if self.client is not None else None
        sid = self.client.sid if self.client is not None else None
        client = Client(self.url, token=token, sid=sid, name=self.name)
        self.clients.append(client)
        await client.start(T)
        return client

    async def _reconnect(self, deadline: float) -> None:
        while True:
            try:
                self.client = await self._connect()
                await self.client.open(self.game, "player", timeout=T)
                self.reconnects += 1
                return
            except Exception as exc:
                self.errors.append(f"reconnect: {exc!r}")
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(PAUSE_S * 4)

    @property
    def view(self) -> Any:
        assert self.client is not None
        return self.client.views[self.game]

    @property
    def playing(self) -> bool:
        return self.client is not None and self.game in self.client.views and self.view.status == "playing"

    async def move(self, undo: bool = False, within: float = 30.0) -> dict[str, Any]:
        """One move (the first legal one, or an undo), resent until answered; returns the answer."""
        if undo:
            move: dict[str, Any] = {"a": "undo"}
        else:
            legal = self.view.legal()
            assert legal, f"{self.name}: no move in {self.view.state}"
            move = legal[0]
        self.seq += 1  # its own counter: a new connection's Client counts from 1 again
        deadline = time.monotonic() + within
        while True:
            assert self.client is not None
            try:
                answer = await self.client.act(self.game, move["a"], move.get("col"), seq=self.seq, timeout=T)
            except (ClientClosed, TimeoutError, OSError) as exc:
                self.errors.append(f"closed: {exc!r}")
                await self._reconnect(deadline)
                continue
            if answer["t"] == "error" and answer.get("code") in RESEND:
                self.errors.append(answer["code"])
                if time.monotonic() > deadline:
                    raise AssertionError(f"{self.name}: no answer to seq {self.seq} within {within} s")
                await asyncio.sleep(PAUSE_S)
                continue
            assert answer["t"] in ("ack", "refused"), answer
            if answer["t"] == "ack":
                self.acks.append(Ack(self.seq, answer["v"], time.monotonic()))
                await self.client.wait_version(self.game, answer["v"], T)
            return answer

    async def keep_moving(self, until: asyncio.Event, pause: float = 0.01) -> None:
        """A move and its undo, again and again (the game never ends), until ``until`` is set."""
        n = 0
        while not until.is_set():
            await self.move(undo=n % 2 == 1)
            n += 1
            await asyncio.sleep(pause)

    def frames(self) -> list[dict[str, Any]]:
        return [f for c in self.clients for f in c.frames]

    async def close(self) -> None:
        for client in self.clients:
            await client.close()

    def longest_pause(self, after: float) -> float:
        """The longest wait between two acks (or from ``after`` to the next ack) once ``after`` passed."""
        times = [after] + [a.at for a in self.acks if a.at > after]
        return max((b - a for a, b in itertools.pairwise(times)), default=0.0)


async def stored_games(url: str, games: list[str]) -> dict[str, dict[str, Any]]:
    """Each game as the cluster stores it: version, log, state, and the state its log replays to."""
    redis = cluster_client(url, 4)
    out = {}
    try:
        for game in games:
            key = game_key(game)
            v, state = await redis.hmget(key, ["v", "state"])
            log = [e.decode() for e in await redis.lrange(key + ":log", 0, -1)]
            stored = decode_state(state)
            replayed = replay(GameCode.parse(str(stored.code)), [parse_token(e.split()[0]) for e in log])
            out[game] = {"v": int(v), "log": log, "state": stored, "replayed": replayed}
    finally:
        await redis.aclose()
    return out


def check_no_acked_move_lost(players: list[Player], stored: dict[str, dict[str, Any]]) -> int:
    """Every ack's version is stored with its move, versions 1..n without a gap, and the log replays to the
    stored state. Returns the number of acked moves checked."""
    total = 0
    for p in players:
        got = stored[p.game]
        versions = [a.v for a in p.acks]
        assert versions == list(range(1, len(versions) + 1)), f"{p.name}: acked versions {versions}"
        assert got["v"] == len(versions), f"{p.name}: stored v {got['v']}, acked {len(versions)}"
        assert len(got["log"]) == got["v"], f"{p.name}: {len(got['log'])} log entries for v {got['v']}"
        assert got["replayed"].to_state() == got["state"].to_state(), f"{p.name}: replay differs"
        total += len(versions)
    return total
