"""The peer that bench/server.py measures Golf Race's server against (issue 18.11): the same games on a
python-socketio server, as a straightforward implementation with that stack would serve them.

    .venv/bin/python bench/peer_socketio.py --port 8100 --redis unix:///tmp/x/redis.sock?db=0

What it is, so that the comparison can be judged:
- ``socketio.AsyncServer`` in ASGI mode (``socketio.ASGIApp``), websocket transport only, under uvicorn with
  the same defaults as ``golfrace serve`` (one process, uvloop, httptools; no permessage-deflate), with
  ``socketio.AsyncRedisManager`` on its own redis-server as the client manager: an emit to a room is
  delivered to this host's members and published on Redis for the other hosts (python-socketio 5.x).
- The same engine, codecs and views as the game server: ``Game.apply``, the stored state of
  ``golfrace.store.game_codec`` (its compact msgpack, the cheapest state codec we have) and the diff of
  ``golfrace.wire.views``; Socket.IO's own JSON framing on the socket (its default serializer).
- A move (``act``): GET the game's key (owner, version, state), decode, ``Game.apply``, build the diff, SET
  the new state with the next version (with the same 24 h expiry), emit the diff to the game's room (the
  player and its watchers), then return the ``ack`` as the event's Socket.IO acknowledgement. Two Redis
  round trips and one PUBLISH a move. It does less than the game server: no compare-and-set on the version
  (a game has one player), no stored answer per ``seq`` (a resent move is applied again), no rate limits,
  no metrics, no resync buffer, no race gate.
- Events: ``new`` {code} → snapshot (the player joins the game's room; ``GameCode`` string as in the game
  server's ``new``), ``open`` {game} → snapshot (a watcher joins the room), ``close`` {game} (leaves it),
  ``act`` {game, seq, a, col} → ack {game, seq, v} or {error}. The player is the ``player`` of the connect
  handshake's auth (``40{"player": ...}``), as the game server's player is its hello's token.
"""

from __future__ import annotations

import argparse
import secrets
from typing import Any

import msgpack
import socketio
import uvicorn
from redis import asyncio as aioredis

from golfrace.engine import Action, Draw, Game, GameCode, Refusal, Tap, Undo
from golfrace.store.game_codec import decode_state, encode_state, history_text
from golfrace.wire.views import diff, public_state

GAME_TTL_S = 24 * 3600
KEY = "peer:game:"
REDIS_CONNECTIONS = 1000


def _action(data: dict[str, Any]) -> Action:
    a = data["a"]
    if a == "draw":
        return Draw()
    if a == "undo":
        return Undo()
    return Tap(int(data["col"]), data.get("row"))


def _pack(owner: str, v: int, game: Game) -> bytes:
    return msgpack.packb([owner, v, encode_state(game, history_text(game))])  # type: ignore[no-any-return]


def create_app(redis_url: str) -> socketio.ASGIApp:
    # a connection per concurrent command, like bench/server.py's echo + Redis floor (redis-py's pool stops at
    # 100 by default, fewer than the bench's 200 concurrent players)
    options = {"max_connections": REDIS_CONNECTIONS}
    redis = aioredis.Redis.from_url(redis_url, **options)
    sio = socketio.AsyncServer(
        async_mode="asgi",
        client_manager=socketio.AsyncRedisManager(redis_url, redis_options=options),
        transports=["websocket"],
        cors_allowed_origins="*",
    )
    players: dict[str, str] = {}

    async def load(game_id: str) -> tuple[str, int, Game] | None:
        raw = await redis.get(KEY + game_id)
        if raw is None:
            return None
        owner, v, state = msgpack.unpackb(raw)
        return owner, v, decode_state(state)

    def snapshot(game_id: str, v: int, game: Game) -> dict[str, Any]:
        return {"t": "snapshot", "game": game_id, "v": v, **public_state(game, False)}

    @sio.event
    async def connect(sid: str, environ: dict[str, Any], auth: dict[str, Any] | None = None) -> None:
        players[sid] = str((auth or {}).get("player") or sid)

    @sio.event
    async def disconnect(sid: str, *_reason: Any) -> None:
        players.pop(sid, None)

    @sio.on("new")
    async def new(sid: str, data: dict[str, Any]) -> dict[str, Any]:
        game = Game.new(GameCode.parse(data["code"]))
        game_id = secrets.token_hex(6)
        await redis.set(KEY + game_id, _pack(players[sid], 0, game), ex=GAME_TTL_S)
        await sio.enter_room(sid, game_id)
        return snapshot(game_id, 0, game)

    @sio.on("open")
    async def open_game(sid: str, data: dict[str, Any]) -> dict[str, Any]:
        game_id = str(data["game"])
        found = await load(game_id)
        if found is None:
            return {"t": "error", "code": "no_game"}
        await sio.enter_room(sid, game_id)
        return snapshot(game_id, found[1], found[2])

    @sio.on("close")
    async def close(sid: str, data: dict[str, Any]) -> None:
        await sio.leave_room(sid, str(data["game"]))

    @sio.on("act")
    async def act(sid: str, data: dict[str, Any]) -> dict[str, Any]:
        game_id, seq = str(data["game"]), data["seq"]
        found = await load(game_id)
        if found is None:
            return {"t": "error", "code": "no_game", "seq": seq}
        owner, v, before = found
        if owner != players.get(sid):
            return {"t": "error", "code": "not_player", "seq": seq}
        action = _action(data)
        try:
            after = before.apply(action)
        except Refusal as refusal:
            return {"t": "refused", "game": game_id, "seq": seq, "code": refusal.code}
        change = diff(game_id, v, before, after, action, False)
        await redis.set(KEY + game_id, _pack(owner, v + 1, after), ex=GAME_TTL_S)
        await sio.emit("diff", change, room=game_id)
        return {"t": "ack", "game": game_id, "seq": seq, "v": v + 1}

    return socketio.ASGIApp(sio)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--redis", required=True, help="its own redis-server's URL")
    args = parser.parse_args()
    uvicorn.run(
        create_app(args.redis),
        host=args.host,
        port=args.port,
        log_level="warning",
        ws_per_message_deflate=False,
    )


if __name__ == "__main__":
    main()
