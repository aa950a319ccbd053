"""The load generator's side of the peer (bench/peer_socketio.py): the Engine.IO 4 / Socket.IO 5 protocol
spoken directly over the same websockets client that plays the game server, so that both servers get the
same moves from the same client code and the generators' own cost stays comparable.

The part of the protocol it needs (websocket transport only, no polling, no binary attachments):
- the server opens with ``0{"sid": ..., "pingInterval": ...}``; the client connects the namespace with
  ``40{auth}``, the server answers ``40{"sid": ...}``;
- an event with an acknowledgement is ``42<id>["name",{data}]``, its answer ``43<id>[{data}]``; an event
  from the server (the room's ``diff``) is ``42["diff",{data}]``;
- the server pings with ``2``, the client answers ``3``.
``PeerPlayer`` has the interface of bench/server.py's ``Player`` (``start``, ``new_game``, ``move``) so that
the saturation loop is the same code for both servers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable
from multiprocessing.connection import Connection
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from bench_player import Line, LinePlayer

PING, PONG = "2", "3"
DIFF_HEAD = '42["diff",'


def socket_url(http_base: str) -> str:
    """The Socket.IO websocket endpoint of a server at ``ws://host:port``."""
    return f"{http_base}/socket.io/?EIO=4&transport=websocket"


async def open_peer(url: str, player: str | None = None) -> ClientConnection:
    """A websocket that has done the Engine.IO open and the Socket.IO namespace connect."""
    ws = await connect(url, compression=None, ping_interval=None, max_size=2**20, open_timeout=60)
    opened = await ws.recv()
    if not isinstance(opened, str) or not opened.startswith("0{"):
        raise RuntimeError(f"not an Engine.IO open packet: {opened!r}")
    await ws.send("40" + json.dumps({"player": player} if player else {}))
    while True:
        frame = await ws.recv()
        if frame == PING:
            await ws.send(PONG)
        elif isinstance(frame, str) and frame.startswith("40"):
            return ws
        else:
            raise RuntimeError(f"namespace connect refused: {frame!r}")


async def open_many_peers(url: str, n: int, batch: int = 100) -> list[ClientConnection]:
    out: list[ClientConnection] = []
    for start in range(0, n, batch):
        out += await asyncio.gather(*(open_peer(url) for _ in range(min(batch, n - start))))
    return out


class PeerPlayer(LinePlayer):
    """One connection of the load generator to the peer, with bench/server.py's ``Player`` interface."""

    def __init__(self, ws: ClientConnection, lines: list[Line], first: int) -> None:
        super().__init__(ws, lines, first)
        self.ack_id = 0

    async def call(self, event: str, data: dict[str, Any]) -> dict[str, Any]:
        """Emit ``event`` with an acknowledgement id, read frames until its answer (``43<id>[...]``);
        the room's diffs are skipped by their first bytes, pings answered."""
        self.ack_id += 1
        await self.ws.send(f"42{self.ack_id}" + json.dumps([event, data]))
        head = f"43{self.ack_id}["
        while True:
            frame = await self.ws.recv()
            if type(frame) is not str:
                continue
            if frame.startswith(head):
                reply: dict[str, Any] = json.loads(frame[len(head) - 1 :])[0]
                if reply.get("t") in ("error", "refused"):
                    raise RuntimeError(f"unexpected answer {reply}")
                return reply
            if frame == PING:
                await self.ws.send(PONG)

    async def start(self) -> None:
        await self.new_game()

    async def new_game(self) -> None:
        if self.game:
            await self.ws.send("42" + json.dumps(["close", {"game": self.game}]))
        code, self.line = self.lines[self.next_line % len(self.lines)]
        self.next_line += 1
        reply = await self.call("new", {"code": code})
        self.game, self.pos, self.v = reply["game"], 0, reply["v"]

    async def move(self) -> float:
        """The next precomputed action; returns its move→ack seconds."""
        if self.pos >= len(self.line):
            await self.new_game()
        self.seq += 1
        data = {"game": self.game, "seq": self.seq, **self.line[self.pos]}
        started = time.perf_counter()
        reply = await self.call("act", data)
        took = time.perf_counter() - started
        self.pos += 1
        self.v = reply["v"]
        return took


async def make_peer_game(url: str, player: str, code: str) -> str:
    """A new game of ``player`` for the fan-out phase: its id."""
    ws = await open_peer(url, player)
    try:
        return (await PeerPlayer(ws, [], 0).call("new", {"code": code}))["game"]
    finally:
        await ws.close()


async def peer_fanout_worker(
    job: dict[str, Any], pipe: Connection, until_told: Callable[[Connection], Awaitable[None]]
) -> dict[str, Any]:
    """bench/server.py's fan-out phase against the peer: watchers of one game, and in the mover's process the
    game's player alternating draw and undo at ``fanout_rate`` moves/s; the same result as its
    ``fanout_worker`` (the mover's send time per version, each watcher's diff arrivals)."""
    url, game = job["url"], job["game"]
    watchers = [await open_peer(url) for _ in range(job["watchers"])]
    for ws in watchers:
        await PeerPlayer(ws, [], 0).call("open", {"game": game})
    mover = None
    if job["mover"]:
        mover = PeerPlayer(await open_peer(url, job["token"]), [], 0)
        await mover.call("open", {"game": game})
    arrivals: list[list[tuple[int, float]]] = [[] for _ in watchers]

    async def watch(ws: ClientConnection, out: list[tuple[int, float]]) -> None:
        with contextlib.suppress(Exception):
            async for frame in ws:
                if frame == PING:
                    await ws.send(PONG)
                elif isinstance(frame, str) and frame.startswith(DIFF_HEAD):
                    out.append((json.loads(frame[2:])[1]["v"], time.monotonic()))

    pipe.send("ready")
    start_at = pipe.recv()
    tasks = [asyncio.create_task(watch(ws, out)) for ws, out in zip(watchers, arrivals, strict=True)]
    await asyncio.sleep(max(0.0, start_at - time.monotonic()))
    sent: dict[int, float] = {}
    deadline = time.monotonic() + job["seconds"]
    if mover is not None:
        seq, interval, next_at = 0, 1.0 / job["fanout_rate"], time.monotonic()
        while time.monotonic() < deadline:
            seq += 1
            sent_at = time.monotonic()
            reply = await mover.call(
                "act", {"game": game, "seq": seq, "a": "undo" if seq % 2 == 0 else "draw"}
            )
            sent[reply["v"]] = sent_at
            next_at += interval
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
    else:
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))
    await asyncio.sleep(0.5)  # the last diffs reach the watchers
    for task in tasks:
        task.cancel()
    cpu = time.process_time()
    await until_told(pipe)
    await asyncio.gather(*(ws.close() for ws in watchers), return_exceptions=True)
    if mover is not None:
        await mover.ws.close()
    return {
        "count": len(sent),
        "elapsed": job["seconds"],
        "lat": [],
        "sent": sent,
        "arrivals": arrivals,
        "cpu": cpu,
    }
