"""A player's finished games are one record (``accounts/history.py``): the profile and the stats page read
the same keys, in one Cluster slot, written once per game end; a guest's expire, an account's are kept.
Real HTTP, websockets and Redis."""

from __future__ import annotations

import secrets
from typing import Any

import httpx
import redis.asyncio as aioredis
from redis.crc import key_slot

from golfrace.accounts.sessions import COOKIE
from golfrace.settings import Settings
from golfrace.settings.accounts import AccountSettings
from golfrace.store import account_keys as keys
from golfrace.store.history import Finished, History
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer

from ..server.helpers import WIN_CODE, WIN_MOVES
from .conftest import new_name, sign_up, ws_client
from .test_profile import _win


async def _stuck_undone_won(client: Client) -> str:
    """The winning line, but its last move a draw that leaves the game stuck; undone, then the winning tap."""
    *line, last = WIN_MOVES.split()
    assert last != "d"
    view = await client.new(WIN_CODE)
    for token in line:
        action = {"a": "draw"} if token == "d" else {"a": "tap", "col": int(token)}
        assert (await client.act(view.game, **action))["t"] == "ack"
    assert (await client.act(view.game, "draw"))["t"] == "ack"
    assert client.views[view.game].status == "stuck"
    assert (await client.act(view.game, "undo"))["t"] == "ack"
    assert (await client.act(view.game, "tap", col=int(last)))["t"] == "ack"
    assert client.views[view.game].status == "won"
    return view.game


def _history_keys(player: str) -> list[str]:
    return [keys.history(player), keys.history_games(player), keys.history_summaries(player)]


async def test_one_record_read_by_the_stats_page_and_the_profile_kept_once_the_guest_signs_up(
    http: httpx.AsyncClient, acct_server: RunningServer, acct_settings: Settings, rds: aioredis.Redis
) -> None:
    guest = await ws_client(acct_server)
    game = await _stuck_undone_won(guest)  # the history is written before the move's ack
    player = guest.player
    # the stats page: the game counts once, as it ended last (a win, not the stuck end before it)
    r = await http.get("/api/players/me/stats", headers={"Authorization": f"Bearer {guest.token}"})
    page = r.json()
    assert r.status_code == 200 and page["played"] == 1 and page["won"] == 1 and page["win_rate"] == 1
    assert page["modes"]["solo"]["played"] == page["modes"]["solo"]["won"] == 1
    assert page["modes"]["solo"]["best_score"] == 350 and page["win_streak"] == 1
    assert [(g["mode"], g["status"], g["score"]) for g in page["recent"]] == [("solo", "won", 350)]
    # one record: the history's three keys, in the player's slot (with the account's key), a guest's TTL
    found = {k.decode() async for k in rds.scan_iter(match=f"*{{{player}}}*")}
    assert {k for k in found if k.startswith("hist:")} == set(_history_keys(player))
    assert not [k for k in found if k.startswith("stats:")], found
    assert len({key_slot(k.encode()) for k in [*_history_keys(player), keys.account(player)]}) == 1
    for key in _history_keys(player):
        assert 0 < await rds.ttl(key) <= acct_settings.accounts.anonymous_history_ttl_s, key
    # signing up from the guest's token brings the same games along, kept for good
    await sign_up(http, new_name("One"), token=guest.token)
    await guest.close()
    profile = (await http.get("/api/account/profile")).json()
    assert profile["stats"]["played"] == 1 and profile["stats"]["won"] == 1
    assert profile["stats"]["modes"]["solo:easy"] == {
        "played": 1,
        "won": 1,
        "best_score": 350,
        "best_time": profile["stats"]["modes"]["solo:easy"]["best_time"],
    }
    assert [(g["game"], g["status"], g["score"]) for g in profile["recent"]] == [(game, "won", 350)]
    for key in _history_keys(player):
        assert await rds.ttl(key) == -1, key
    # the account's next game: the same record, still kept (the write itself sees the account)
    account = await ws_client(acct_server, session=http.cookies[COOKIE])
    assert account.player == player
    await _win(account)
    await account.close()
    page = (await http.get("/api/players/me/stats")).json()  # the session cookie alone
    profile = (await http.get("/api/account/profile")).json()
    assert page["played"] == profile["stats"]["played"] == 2 and page["win_streak"] == 2
    for key in _history_keys(player):
        assert await rds.ttl(key) == -1, key


def _finished(n: int, status: str = "won", score: int = 350, kind: str = "solo") -> Finished:
    return Finished(f"g{n}", kind, "easy", status, score, 50, 1000 + n, 10_000 + n)


async def test_each_end_counts_once_and_the_list_keeps_the_latest_games(rds: aioredis.Redis) -> None:
    history = History(rds, AccountSettings(history_max=3, anonymous_history_ttl_s=600))
    player = "p" + secrets.token_hex(8)
    for n in range(5):
        assert await history.record(player, _finished(n, "won" if n != 2 else "stuck", score=100 + n))
    assert not await history.record(player, _finished(4, score=104))  # the same end told again
    assert await history.record(player, _finished(5, "resigned", score=0, kind="race"))
    stats: dict[str, Any] = await history.stats(player)
    assert stats["played"] == 6 and stats["won"] == 4  # the counters keep every game
    assert stats["modes"]["solo:easy"] == {"played": 5, "won": 4, "best_score": 104, "best_time": 1000}
    assert stats["modes"]["race:easy"] == {"played": 1, "won": 0, "best_score": 0, "best_time": None}
    assert [g.game for g in await history.games(player)] == ["g3", "g4", "g5"]  # the latest 3, oldest first
    assert [g.game for g in await history.recent(player, 2)] == ["g5", "g4"]
    # a listed game that ends again moves its counts to its new end
    assert await history.record(player, Finished("g5", "race", "easy", "won", 300, 60, 900, 20_000))
    stats = await history.stats(player)
    assert stats["played"] == 6 and stats["won"] == 5 and stats["modes"]["race:easy"]["won"] == 1
    page = await history.page(player, 0, 0)
    assert page["modes"]["race"] == {"played": 1, "won": 1, "best_score": 300, "best_time": 900}
    assert page["modes"]["solo"]["played"] == 5 and page["modes"]["daily"]["played"] == 0
    assert page["win_streak"] == page["best_win_streak"] == 3 and page["win_rate"] == round(5 / 6, 4)
    for key in _history_keys(player):
        assert 0 < await rds.ttl(key) <= 600, key
    assert len(await history.forget(player)) == 3
    assert not await rds.exists(*_history_keys(player))
