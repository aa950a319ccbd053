"""Quick races on the wire: the handlers of ``pool_join``, ``pool_leave`` and ``pool_result``
(``wire/messages.py``) and the rating routes; the extension itself is ``extension.py``."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from golfrace.engine.rules import RULES
from golfrace.http.callers import caller
from golfrace.live.dispatch import handler
from golfrace.live.session import Session
from golfrace.store.public_names import public_name
from golfrace.wire.protocol import ProtocolError

from ..races.errors import RaceError
from ..races.followers import wire_of
from ..races.handlers import _name, _player
from ..races.racer import bot_strength
from ..races.routes import _http_error, _int
from .ratings import HELD, REFUSED
from .service import PoolService

__all__ = ["on_pool_join", "on_pool_leave", "on_pool_result", "routes"]


def pool_of(session: Session) -> PoolService:
    return session.ctx.get(PoolService)


@handler("pool_join")
async def on_pool_join(session: Session, msg: dict[str, Any]) -> None:
    """Seek a quick race of ``rules``: ``pool`` (searching) now and every ``stamp_interval_s``, then
    ``pool_found`` once a wave put the player in a race."""
    player = _player(session)
    await session.ctx.identity.still_signed_in(session, "pool_join")  # a signed-out session seeks no more
    pool = pool_of(session)
    name = await _name(session, msg)
    await pool.join(session, player, msg["rules"], name, session.account, session.network)
    session.send(pool.status(player))


@handler("pool_leave")
async def on_pool_leave(session: Session, msg: dict[str, Any]) -> None:
    player = _player(session)
    pool = pool_of(session)
    await pool.leave(player)
    session.send(pool.status(player))


@handler("pool_result")
async def on_pool_result(session: Session, msg: dict[str, Any]) -> None:
    """The rating change a quick race made for the caller: ``state`` ``rated`` (with ``rating``, ``delta``,
    ``provisional``), ``pending`` (not rated yet: ask again), ``held`` (a result held for review, or refused),
    ``casual`` (a guest's race, or the caller was not rated: a countdown leave within the allowance)."""
    player = _player(session)
    pool = pool_of(session)
    race = await wire_of(session).service.load(msg["race"])
    if race is None or race.racer(player) is None or not race.pool:
        raise ProtocolError("race_not_found", "no quick race of yours with this id", ref="pool_result")
    rules = race.code.rules.value
    out: dict[str, Any] = {"t": "pool_result", "race": race.id, "rules": rules, "rating": None}
    out.update(delta=None, provisional=None)
    account = session.account
    if not race.ranked or account is None:
        session.send({**out, "state": "casual"})
        return
    point = await pool.ratings.change_in(account, race.id, rules)
    rating = await pool.ratings.get(account, rules)
    if point is not None:
        state = "rated"
        provisional = rating.provisional(pool.settings)
        out.update(rating=point["rating"], delta=point["delta"], provisional=provisional)
    elif await pool.ratings.state(race.id) in (HELD, REFUSED):  # held for review, or refused by it
        state = "held"
    elif race.finalized:
        state = "casual"
    else:
        state = "pending"
    session.send({**out, "state": state})


async def ratings_board(request: Request) -> Response:
    """``GET /api/ratings/{rules}?limit=``: the rating board (established accounts; never a bot)."""
    rules = request.path_params["rules"]
    if rules not in RULES:
        return _http_error("bad_field", "rules is easy or classic", 400)
    pool: PoolService = request.app.state.ctx.get(PoolService)
    try:
        limit = _int(request, "limit", 50, 1, 100)
    except RaceError as exc:
        return _http_error(exc.code, exc.message)
    rows = await pool.ratings.board(rules, limit)
    entries = []
    for rank, (player, rating) in enumerate(rows, start=1):
        if bot_strength(player) is not None:
            continue
        name = await public_name(pool.ctx.redis, player)
        if name is None:
            continue
        entries.append({"rank": rank, "name": name, "rating": rating})
    return JSONResponse({"rules": rules, "entries": entries})


async def my_ratings(request: Request) -> Response:
    """``GET /api/players/me/ratings``: the caller's rating per rule set, its history (for the chart) and the
    win rate against each strength."""
    player = await caller(request)
    if player is None:
        return _http_error("bad_token", "send your token or sign in", 401)
    pool: PoolService = request.app.state.ctx.get(PoolService)
    out = {}
    for rules in RULES:
        rating = await pool.ratings.get(player, rules)
        out[rules] = {
            **rating.public(pool.settings),
            "history": [
                {"at": p["at"], "rating": p["rating"], "delta": p["delta"]}
                for p in await pool.ratings.history(player, rules)
            ],
        }
    return JSONResponse(out)


def routes() -> list[BaseRoute]:
    return [
        Route("/api/ratings/{rules}", ratings_board),
        Route("/api/players/me/ratings", my_ratings),
    ]
