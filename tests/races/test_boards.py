"""Leaderboards (real Redis): exact tie-breaks, one entry per player, N/E sharing, records only."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from golfrace.engine import GameCode
from golfrace.races.errors import RaceError
from golfrace.races.leaderboard import Entry, Leaderboards, code_board, composite, member
from golfrace.races.race import Race
from golfrace.races.ranking import order
from golfrace.races.replay import GameRecord, RecordStore, public, verify

from ..accounts.helpers import make_account_record
from .helpers import Play, play, stuck_deal, won_deal

T = 1_800_000_000_000


def entry(player: str, score: int, elapsed: int, moves: int, finished: int) -> Entry:
    return Entry(player, player.title(), score, elapsed, moves, finished, f"g-{player}")


def test_composite_orders_exactly_and_fits_a_double() -> None:
    worst = composite(0, 2**40, 10**9)
    assert worst < 2**53 and float(worst) == worst
    assert composite(350, 10**9, 10**6) < composite(340, 0, 0)  # score first
    assert composite(350, 1000, 500) < composite(350, 1001, 0)  # then time
    assert composite(350, 1000, 60) < composite(350, 1000, 61)  # then moves
    assert member(5, "z") < member(10, "a")  # then the earlier finish (byte order of the member)


def test_composite_ranks_a_stopped_game_below_one_played_to_its_end_and_above_one_of_no_move() -> None:
    """Fair play 19.8: at the same score, played to its end (however slow) < stopped (however quick) < no
    move; the score still comes first, and the rule is ``ranking.order``'s, packed."""
    stuck = composite(0, 2**26 - 1, 2**16 - 1)
    resigned = composite(0, 0, 1, stopped=True)
    countdown = composite(0, 0, 0, stopped=True)
    assert stuck < resigned < countdown < 2**53
    assert composite(10, 10**9, 500, stopped=True) < composite(0, 0, 1)  # the score first
    assert composite(0, 5, 3, stopped=True) < composite(0, 6, 3, stopped=True)  # then the time, among stopped
    assert composite(0, 0, 0) == composite(0, 0, 0, stopped=True)  # no move: stopped or not, the same level
    pairs = [((0, 90_000, 20, False), (0, 1_000, 1, True)), ((0, 1, 1, True), (0, 0, 0, False))]
    for (s1, e1, m1, x1), (s2, e2, m2, x2) in pairs:
        assert (composite(s1, e1, m1, x1) < composite(s2, e2, m2, x2)) == (
            order(s1, m1, e1, x1) < order(s2, m2, e2, x2)
        )


def test_keys_stored_before_the_stopped_level_read_the_same() -> None:
    """The layout before the stopped level (no-move bit at 43, 27 bits of time at 16) gives, for any time
    under 2**26 ms, the key this one gives a game not stopped: boards already stored keep their order."""
    for score, elapsed, moves in [(350, 61_000, 40), (0, 0, 0), (120, 2**26 - 1, 2**16 - 1), (0, 5, 1)]:
        before = ((350 - score) << 44) | ((moves == 0) << 43) | (elapsed << 16) | moves
        assert composite(score, elapsed, moves) == before


async def test_tie_breaks_on_a_real_board(rds: aioredis.Redis) -> None:
    lb = Leaderboards(rds)
    board = "code:GO1-E-AAAAAAD"
    entries = [
        entry("late", 350, 60_000, 50, T + 900),  # ties "early" on score/time/moves, finished later
        entry("early", 350, 60_000, 50, T + 100),
        entry("slow", 350, 61_000, 10, T),
        entry("wordy", 350, 60_000, 51, T),
        entry("low", 340, 1_000, 10, T),
        entry("fast", 350, 59_999, 99, T + 5000),
    ]
    for e in entries:
        assert await asyncio.wait_for(lb.submit(board, e.player, e), 5)
    total, page = await lb.page(board, 0, 10)
    assert total == 6
    assert [p["player"] for p in page] == ["fast", "early", "late", "wordy", "slow", "low"]
    assert [p["rank"] for p in page] == [1, 2, 3, 4, 5, 6]
    _, second = await lb.page(board, 2, 2)
    assert [p["player"] for p in second] == ["late", "wordy"]
    # one entry per player: a worse result is ignored, a better one replaces
    assert not await lb.submit(board, "low", entry("low", 300, 1, 1, T + 1))
    assert await lb.submit(board, "low", entry("low", 350, 1, 1, T + 2))
    total, page = await lb.page(board, 0, 10)
    assert total == 6 and page[0]["player"] == "low"
    mine = await lb.rank_of(board, "slow")
    assert mine == {"rank": 6, "entry": {k: v for k, v in page[5].items() if k != "rank"}}
    assert await lb.rank_of(board, "nobody") is None


def record_for(
    code: str, tokens: tuple[str, ...], status: str, player: str = "p1", **kw: object
) -> GameRecord:
    log = tuple((t, 1000 * (i + 1)) for i, t in enumerate(tokens))
    return GameRecord(f"r1-{player}", code, player, player, status, T, T + 1000 * len(tokens), log, **kw)  # type: ignore[arg-type]


async def test_records_are_replayed_and_n_and_e_share_a_board(rds: aioredis.Redis) -> None:
    code, line = won_deal()
    lb = Leaderboards(rds)
    await make_account_record(rds, "p1", "p1")  # public boards take accounts only
    n_code = code.replace("-E-", "-N-")
    assert code_board(n_code) == code_board(code)
    changed = await lb.submit_record(record_for(n_code, line, "won", ranked=True))
    assert changed == [code_board(code), "pb:p1"]
    _, page = await lb.page(code_board(code), 0, 5)
    assert (
        page[0]["score"] == 350 and page[0]["moves"] == len(line) and page[0]["elapsed"] == 1000 * len(line)
    )
    bests = await lb.page("pb:p1", 0, 5)
    assert bests[1][0]["code"] == code
    # unranked (typed-code) games never post
    assert await lb.submit_record(record_for(code, line, "won", player="p2", ranked=False)) == []
    # a record whose log does not reach its claimed status is refused
    with pytest.raises(RaceError) as info:
        await lb.submit_record(record_for(code, line[:-1], "won", player="p3", ranked=True))
    assert info.value.code == "replay_mismatch"
    with pytest.raises(RaceError):
        verify(record_for(code, ("d", "7", "7", "7", "7", "7", "7"), "stuck"))


async def test_record_store_and_public_replay(rds: aioredis.Redis) -> None:
    code, line = stuck_deal()
    seats = Play(Race.create("rr", GameCode.parse(code), host="a", name="Ann", now=T).start("a", T))
    start = seats.race.starts_at
    assert start is not None
    for i, tok in enumerate(line):
        race = seats.run("a", [tok], start + 100 * (i + 1))
    racer = race.racer("a")
    assert racer is not None and racer.status == "stuck"
    rec = GameRecord.of(race, racer, seats.log("a"))
    store = RecordStore(rds, ttl_s=60)
    assert await store.save(rec) and not await store.save(rec)
    loaded = await store.load(rec.game)
    assert loaded == rec and 0 < await rds.ttl(f"rec:{{{rec.game}}}") <= 60
    body = public(loaded)
    final = play(code, list(line))
    assert body["status"] == "stuck" and body["score"] == final.score and body["moves"] == len(line)
    assert len(body["steps"]) == len(line) and body["steps"][-1]["status"] == "stuck"
    drawn = [s["drawn"] for s in body["steps"] if "drawn" in s]
    assert drawn == body["deal"]["stock"][: len(drawn)]
    assert await store.load("nope") is None


async def test_boards_expire_when_nobody_posts_and_every_post_keeps_them(rds: aioredis.Redis) -> None:
    lb = Leaderboards(rds, ttl_s=1000)
    board = "code:GO1-E-AAAAAAF"
    keys = [f"lb:{{{board}}}:{k}" for k in "zpe"]
    assert await lb.submit(board, "ann", entry("ann", 300, 60_000, 50, T))
    await rds.expire(keys[0], 10)
    assert not await lb.submit(board, "ann", entry("ann", 200, 60_000, 50, T + 1))  # not better, but a post
    assert all(900 < ttl <= 1000 for ttl in [await rds.ttl(k) for k in keys])


async def test_a_capped_board_keeps_only_its_best_entries(rds: aioredis.Redis) -> None:
    lb = Leaderboards(rds)
    board = "pb:ann"
    z, p, e = (f"lb:{{{board}}}:{k}" for k in "zpe")
    for n, score in enumerate((100, 300, 200)):
        assert await lb.submit(
            board, f"GO1-E-AAAAAA{'BCD'[n]}", entry("ann", score, 60_000, 50, T + n), cap=3
        )
    assert await lb.submit(board, "GO1-E-AAAAAAE", entry("ann", 250, 60_000, 50, T + 3), cap=3)  # 100 goes
    assert not await lb.submit(board, "GO1-E-AAAAAAF", entry("ann", 50, 60_000, 50, T + 4), cap=3)  # too low
    total, entries = await lb.page(board, 0, 10)
    assert total == 3 and [x["score"] for x in entries] == [300, 250, 200]
    assert sorted(k.decode() for k in await rds.hkeys(p)) == [
        "GO1-E-AAAAAAC",
        "GO1-E-AAAAAAD",
        "GO1-E-AAAAAAE",
    ]
    assert await rds.hlen(e) == 3 and await rds.zcard(z) == 3
    # the evicted code can come back with a better game; uncapped boards keep everyone
    assert await lb.submit(board, "GO1-E-AAAAAAB", entry("ann", 350, 60_000, 50, T + 5), cap=3)
    assert [x["score"] for x in (await lb.page(board, 0, 10))[1]] == [350, 300, 250]
    for n in range(5):
        await lb.submit("code:GO1-E-AAAAAAG", f"p{n}", entry(f"p{n}", 10 * n, 60_000, 50, T))
    assert (await lb.page("code:GO1-E-AAAAAAG", 0, 10))[0] == 5


async def test_personal_bests_are_capped_by_bests_max(rds: aioredis.Redis) -> None:
    (won, won_line), (stuck, stuck_line) = won_deal(), stuck_deal()
    lb = Leaderboards(rds, bests_max=1)
    await make_account_record(rds, "p1", "p1")
    await lb.submit_record(record_for(stuck, stuck_line, "stuck", ranked=True))
    assert await lb.submit_record(record_for(won, won_line, "won", ranked=True)) == [code_board(won), "pb:p1"]
    total, entries = await lb.page("pb:p1", 0, 5)
    assert total == 1 and entries[0]["code"] == won and entries[0]["score"] == 350
    assert (await lb.page(code_board(stuck), 0, 5))[0] == 1  # the code's own board keeps the stuck game
