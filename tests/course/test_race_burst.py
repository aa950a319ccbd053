"""A course race under a burst of 100 simultaneous requests (the fair-play rule for every limit): a race of
three seats seats exactly three racers however many join at once, and one racer's 100 simultaneous asks for
the next hole deal one hole game, not one per request (the games dealt by the losing writes are removed, so
none is left in the racer's list of games to be opened and read)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from golfrace.store.keys import player_key

from .helpers import T

pytestmark = pytest.mark.timeout(240)
BURST = 100


def bearer(server: Any, player: str) -> dict[str, str]:
    """A guest's token, as the server issues one (``Tokens.issue``): a player per identity of the burst."""
    return {"Authorization": f"Bearer {server.ctx.tokens.sign(player)}"}


async def test_a_burst_of_joins_seats_no_more_than_the_race_has_and_a_burst_of_nexts_deals_one_hole(
    course_server: Any,
) -> None:
    host = bearer(course_server, "pburst0host00000")
    async with httpx.AsyncClient(base_url=course_server.http, timeout=T) as http:
        created = await http.post("/api/course-races", json={"name": "Host", "seats": 3}, headers=host)
        assert created.status_code == 200, created.text
        race_id = created.json()["id"]

        async def join(k: int) -> httpx.Response:
            return await http.post(
                f"/api/course-races/{race_id}/join",
                json={"name": f"R{k}"},
                headers=bearer(course_server, f"pburst{k:010d}"),
            )

        joins = await asyncio.gather(*(join(k) for k in range(BURST)))
        ok = [r for r in joins if r.status_code == 200]
        full = [r for r in joins if r.status_code == 409 and r.json()["error"] == "race_full"]
        assert len(ok) == 2 and len(full) == BURST - 2, sorted({r.status_code for r in joins})
        race = (await http.get(f"/api/course-races/{race_id}", headers=host)).json()
        assert len(race["racers"]) == 3

        started = await http.post(f"/api/course-races/{race_id}/start", json={}, headers=host)
        assert started.status_code == 200, started.text
        nexts = await asyncio.gather(
            *(http.post(f"/api/course-races/{race_id}/next", json={}, headers=host) for _ in range(BURST))
        )
        answered = [r for r in nexts if r.status_code == 200]
        # every answer that names a game names the one hole game dealt; a refusal is only "too busy"
        games = {r.json()["game"] for r in answered}
        assert len(games) == 1 and None not in games, games
        assert all(r.json()["error"] == "unavailable" for r in nexts if r.status_code != 200)
        assert len(answered) >= 1
        after = (await http.get(f"/api/course-races/{race_id}", headers=host)).json()
        mine = next(r for r in after["racers"] if r["seat"] == after["you"])
        assert mine["hole"] == 1 and mine["played"] == 0
    # the host's games: the one hole game, none of the losers' left behind
    owned = await course_server.ctx.redis.zrange(player_key("pburst0host00000") + ":games", 0, -1)
    assert [g.decode() if isinstance(g, bytes) else g for g in owned] == list(games)
