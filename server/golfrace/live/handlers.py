"""The core handlers of the game messages, but the move: who the connection is (``hello``, ``ping``) and
which games it follows (``new``, ``open``, ``close``, ``resync``).

The move (``act``) is ``moves.py``; the app's table that finds these ``@handler`` functions is
``dispatch.py``. Each handler gets the session and the validated message, answers through ``session.send``
and raises ``ProtocolError`` for errors.
"""

from __future__ import annotations

from typing import Any

from golfrace.engine import GameCode, Rules, random_code
from golfrace.engine.errors import CodeError
from golfrace.engine.rules import DEFAULT_RULES, Variants
from golfrace.live import limits
from golfrace.live.dispatch import handler
from golfrace.live.session import Session
from golfrace.store.keys import channel, seat_of
from golfrace.wire.protocol import CLOSE_TOO_MANY_CONNECTIONS, ProtocolError


# --- identity -----------------------------------------------------------------------------------------------
@handler("hello")
async def on_hello(session: Session, msg: dict[str, Any]) -> None:
    ctx = session.ctx
    token = msg.get("token")
    if token:
        player = ctx.tokens.verify(token)
        if player is None:
            raise ProtocolError("bad_token", "this token was not issued by this server", ref="hello")
        if session.player is not None and player != session.player:
            raise ProtocolError(
                "bad_token",
                "this connection already belongs to another player; use a new connection for this token",
                ref="hello",
            )
    elif session.player is not None:
        player = session.player
    else:
        player, token = ctx.tokens.issue()
    player, token, account = await ctx.identity.identify(session, msg, player, token)  # accounts
    if not ctx.caps.admit_player(session, player):
        session.close(CLOSE_TOO_MANY_CONNECTIONS)
        return
    sid = msg.get("sid")
    if not (isinstance(sid, str) and ctx.tokens.sid_ok(player, sid)):
        # a seq space of its own this player has not shown: the connection's, or a new one (charged)
        kept = session.player == player and ctx.tokens.sid_ok(player, session.sid)
        sid = session.sid if kept else None
    if sid is None:
        await limits.charge_kind(session, "sid", ref="hello")
        sid = ctx.tokens.new_sid(player)
    session.player = player
    if session.hello_timer is not None:  # nothing left for it to do: its handle and closure go (~0.5 KB)
        session.hello_timer.cancel()
        session.hello_timer = None
    session.sid = sid
    session.lang = msg.get("lang", session.lang)
    if "name" in msg:
        session.name = msg["name"].strip()
    await ctx.store.touch_player(player, session.name)
    session.send(
        {
            "t": "welcome",
            "token": token or ctx.tokens.sign(player),
            "player": player,
            "sid": session.sid,
            "lang": session.lang,
            "now": ctx.clock(),
            "games": await ctx.store.player_games(player),
            "limits": ctx.settings.public_limits(),
            "account": account,
        }
    )


@handler("ping")
async def on_ping(session: Session, msg: dict[str, Any]) -> None:
    session.send({"t": "pong", "n": msg.get("n", 0), "now": session.ctx.clock()})


# --- games --------------------------------------------------------------------------------------------------
def _check_room(session: Session, game_id: str, ref: str) -> None:
    if game_id not in session.follows and len(session.follows) >= session.settings.max_open_games:
        raise ProtocolError(
            "too_many_games", f"at most {session.settings.max_open_games} games per connection", ref=ref
        )


@handler("new")
async def on_new(session: Session, msg: dict[str, Any]) -> None:
    hidden = msg.get("code") is None
    if hidden:
        v = msg.get("variants", {})
        code = random_code(Rules(msg.get("rules", DEFAULT_RULES)), Variants.from_wire(v))
    else:
        try:
            code = GameCode.parse(msg["code"])
        except CodeError as exc:
            raise ProtocolError("bad_code", str(exc), ref="new", part=exc.part) from None
    _check_room(session, "", "new")
    assert session.player is not None
    stored = await session.ctx.store.create(session.player, code, hidden)
    await session.subscribe(channel(stored.id))
    await session.follow(stored, "player")


@handler("open")
async def on_open(session: Session, msg: dict[str, Any]) -> None:
    game_id, role = msg["game"], msg["role"]
    _check_room(session, game_id, "open")
    stored = await session.ctx.store.load(game_id)
    if stored is None:
        raise ProtocolError("no_game", f"no game {game_id!r}", ref="open", game=game_id)
    if role == "player" and stored.owner != session.player:
        raise ProtocolError("not_player", "this game belongs to another player", ref="open", game=game_id)
    if role != "player" and seat_of(game_id) is not None:  # watchers see the boards through the race
        raise ProtocolError("not_player", "watch a race seat with `watch`", ref="open", game=game_id)
    placeholder = session.opening(game_id, role)  # holds the diffs that arrive before the snapshot is sent
    try:
        await session.subscribe(channel(game_id))
        stored = await session.ctx.store.load(game_id)  # read after the subscription: no diff falls between
    except BaseException:
        session.abandon(game_id, placeholder)
        raise
    if stored is None:
        await session.unfollow(game_id)
        raise ProtocolError("no_game", f"no game {game_id!r}", ref="open", game=game_id)
    await session.follow(stored, role)


@handler("close")
async def on_close(session: Session, msg: dict[str, Any]) -> None:
    await session.unfollow(msg["game"])


@handler("resync")
async def on_resync(session: Session, msg: dict[str, Any]) -> None:
    follow = session.follows.get(msg["game"])
    if follow is None:
        raise ProtocolError("not_open", "open the game first", ref="resync", game=msg["game"])
    if session.defer_fill(follow, msg["v"]):  # a fill runs: it goes on once more, from msg["v"] if older
        return
    await session.fill(msg["game"], follow, from_v=msg["v"], answer=True)
