"""Quick races over real websockets and a real Redis: two seekers meet in one race, a lone one gets a bot
race, leaving or closing takes a seeker out at once, and the cheats of issue 21.6 — win-trading between two
accounts of one network, flooding the pool, dodging in the countdown — plus ratings applied once, and held
while a result is held for review."""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest

from golfrace.accounts.service import Accounts
from golfrace.pool.service import PoolService
from golfrace.races.followers import RaceWire
from golfrace.settings import Settings
from golfrace.store.embedded import free_port
from golfrace_client.client import Client
from golfrace_client.pool_bot import race_once, run_pool
from golfrace_testkit.servers import RunningServer, running_server

from ..accounts.helpers import make_account_record
from ..races.test_wire import act, apply_diff, greedy, new_race, play_out
from . import servers
from .servers import FAST

T = 15.0


@pytest.fixture(scope="module")
async def pool_server(settings: Settings, tmp_path_factory: Any) -> AsyncIterator[RunningServer]:
    """A server of its own (real time), believing one proxy's X-Forwarded-For: each client picks its
    network."""
    races = replace(settings.races, review_min_moves=20)  # the fair-play timing check as in production
    async with servers.pool_server(settings, tmp_path_factory.mktemp("pool-redis"), races) as running:
        yield running


@pytest.fixture
async def clients() -> AsyncIterator[list[Client]]:
    made: list[Client] = []
    yield made
    for client in made:
        await client.close()
    strange = [reason for client in made for reason in client.strange]
    assert not strange, strange[:5]


async def until(probe: Callable[[], Awaitable[Any]], what: str, timeout: float = T) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := await probe()):
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        await asyncio.sleep(0.02)
    return value


def net() -> str:
    return f"198.51.{secrets.randbelow(250)}.{secrets.randbelow(250) + 1}"


async def guest(server: RunningServer, made: list[Client], network: str | None = None) -> Client:
    client = Client(server.ws, headers={"X-Forwarded-For": network or net()})
    made.append(client)
    await client.start(T)
    return client


async def member(server: RunningServer, made: list[Client], network: str | None = None) -> Client:
    """A signed-in account's connection (the account written straight into Redis, a session opened)."""
    player = "p" + secrets.token_hex(8)
    await make_account_record(server.ctx.redis, player, "u" + player[1:9])
    accounts = server.ctx.get(Accounts)
    signed = await accounts.open_session(await accounts.store.load(player), "test")
    client = Client(server.ws, headers={"X-Forwarded-For": network or net()})
    made.append(client)
    await client.connect(T)
    await client.send({"t": "hello", "lang": "en", "session": signed.session})
    client.welcome = await client.expect("welcome", T)
    client.token, client.player = client.welcome["token"], client.welcome["player"]
    assert client.player == player
    return client


async def seek(client: Client, rules: str = "easy") -> dict[str, Any]:
    rid = secrets.token_hex(4)
    await client.send({"t": "pool_join", "rules": rules, "rid": rid})
    return await client.expect("pool", T, where=lambda m: m.get("rid") == rid)


async def found(client: Client, timeout: float = T) -> dict[str, Any]:
    return await client.expect("pool_found", timeout)


async def race_of(client: Client, race: str) -> dict[str, Any]:
    await client.send({"t": "race_join", "race": race})
    return await client.expect("race", T, where=lambda m: m["race"] == race)


async def seeking(server: RunningServer, player: str | None) -> bool:
    return bool(await server.ctx.redis.exists(f"pool:p:{{{player}}}"))


async def first_move(client: Client, race: str) -> dict[str, Any]:
    """The racer's first move, once the countdown is over (refused ``race_not_started`` until then)."""
    seq = 1
    while True:
        answer = await act(client, race, seq, {"a": "draw"})
        if answer["t"] == "ack" or answer.get("code") != "race_not_started":
            return answer
        seq += 1
        await asyncio.sleep(0.05)


async def seat_state(client: Client, race: str, seat: int) -> dict[str, Any]:
    """The racer's seat as they see it after their first move (a draw, once the countdown is over)."""
    first = await first_move(client, race)
    assert first["t"] == "ack"
    game = f"{race}-{seat}"
    snapshot = await client.expect("snapshot", T, where=lambda m: m["game"] == game)  # race_act opened it
    state = dict(snapshot["state"])
    state["columns"] = [list(c) for c in state["columns"]]
    for v in range(snapshot["v"] + 1, first["v"] + 1):
        diff = await client.expect("diff", T, where=lambda m, v=v: m["game"] == game and m["v"] == v)
        apply_diff(state, diff)
    return state


async def remove_a_card(client: Client, race: str, seat: int) -> None:
    """Play greedy moves on the racer's seat until one card is removed."""
    state = await seat_state(client, race, seat)
    seq = 100
    while True:
        move = greedy(state)
        assert move is not None, "stuck before removing a card"
        seq += 1
        answer = await act(client, race, seq, move)
        assert answer["t"] == "ack", answer
        apply_diff(state, await client.expect("diff", T, where=lambda m, v=answer["v"]: m["v"] == v))
        if move["a"] == "tap":
            return


async def test_two_seekers_meet_in_one_casual_race(pool_server: RunningServer, clients: list[Client]) -> None:
    ann, bob = await guest(pool_server, clients), await guest(pool_server, clients)
    await seek(ann)
    status = await seek(bob)
    assert status["rules"] == "easy" and status["n"] >= 1
    a, b = await found(ann), await found(bob)
    assert a["race"] == b["race"] and a["starts_at"] > 0
    view = await race_of(ann, a["race"])
    assert view["pool"] and not view["ranked"]  # guests: casual
    assert {r["player"] for r in view["racers"]} == {ann.player, bob.player}
    # started by itself (a 600 ms countdown here: a loaded machine may answer after it), its code secret
    assert view["phase"] in ("countdown", "running") and view["starts_at"] == a["starts_at"]
    assert view["code"] is None
    assert not await seeking(pool_server, ann.player)


async def test_a_lone_seeker_races_a_bot_that_plays_by_itself(
    pool_server: RunningServer, clients: list[Client]
) -> None:
    solo = await guest(pool_server, clients)
    await seek(solo, "classic")
    msg = await found(solo)
    view = await race_of(solo, msg["race"])
    bots = [r for r in view["racers"] if "bot" in r]
    assert len(bots) == FAST.bot_racers and bots[0]["name"].endswith(f"(bot {bots[0]['bot']})")
    assert view["rules"] == "classic"
    # the bot moves at its own pace once the race runs, with the same race gate as a person
    line = await solo.expect(
        "race_progress", T, where=lambda m: m["racer"]["player"] == bots[0]["player"] and m["racer"]["moves"]
    )
    assert line["racer"]["moves"] >= 1


async def test_leaving_or_closing_takes_a_seeker_out_at_once(
    pool_server: RunningServer, clients: list[Client]
) -> None:
    ann = await guest(pool_server, clients)
    await seek(ann)
    assert await seeking(pool_server, ann.player)
    await ann.send({"t": "pool_leave"})
    assert (await ann.expect("pool", T, where=lambda m: m["state"] == "idle"))["rules"] is None
    assert not await seeking(pool_server, ann.player)
    bob = await guest(pool_server, clients)
    await seek(bob)
    await bob.close()
    await until(lambda: _not(seeking(pool_server, bob.player)), "the closed seeker left the pool")
    # neither is paired with the next seeker: she gets a bot race
    cat = await guest(pool_server, clients)
    await seek(cat)
    view = await race_of(cat, (await found(cat))["race"])
    assert {r["player"] for r in view["racers"] if "bot" not in r} == {cat.player}


async def _not(value: Awaitable[bool]) -> bool:
    return not await value


async def test_win_trading_two_accounts_of_one_network_are_never_paired_ranked(
    pool_server: RunningServer, clients: list[Client]
) -> None:
    """Cheater: two accounts of one person seek at once from one network, to lose to each other."""
    home = net()
    one, two = await member(pool_server, clients, home), await member(pool_server, clients, home)
    await seek(one)
    await seek(two)
    races = [(await found(c))["race"] for c in (one, two)]
    assert races[0] != races[1]  # each got a bot race after the wait instead
    for client, race in zip((one, two), races, strict=True):
        view = await race_of(client, race)
        assert view["ranked"] and sum(1 for r in view["racers"] if "bot" not in r) == 1


async def test_pool_flooding_is_charged_per_network(settings: Settings, clients: list[Client]) -> None:
    """Cheater: one script floods the pool with seekers from one network."""
    tight = settings.with_(port=0, pool=FAST, trusted_proxies=1, limit_pool_burst=3, limit_pool_per_hour=1.0)
    async with running_server(tight) as server:
        flood = net()
        answers = []
        for _ in range(5):
            client = await guest(server, clients, flood)
            await client.send({"t": "pool_join", "rules": "easy"})
            answers.append(await client.expect(None, T, where=lambda m: m["t"] in ("pool", "error")))
        assert [m["t"] for m in answers] == ["pool", "pool", "pool", "error", "error"]
        assert answers[3]["code"] == "rate_limited" and answers[3]["params"]["kind"] == "pool"
        other = await guest(server, clients)  # another network is not held back
        assert (await seek(other))["state"] == "searching"
        for client in clients:
            await client.close()


async def _result(client: Client, race: str) -> dict[str, Any]:
    async def probe() -> dict[str, Any] | None:
        await client.send({"t": "pool_result", "race": race})
        msg = await client.expect("pool_result", T, where=lambda m: m["race"] == race)
        return None if msg["state"] == "pending" else msg

    result: dict[str, Any] = await until(probe, f"race {race} rated")
    return result


async def test_a_ranked_quick_race_rates_both_accounts_once(
    pool_server: RunningServer, clients: list[Client]
) -> None:
    ann, bob = await member(pool_server, clients), await member(pool_server, clients)
    await seek(ann)
    await seek(bob)
    race = (await found(ann))["race"]
    assert (await found(bob))["race"] == race
    view = await race_of(ann, race)
    await race_of(bob, race)
    assert view["ranked"] and view["pool"] and not view["options"]["undo"]
    # Ann removes a card, both resign
    await remove_a_card(ann, race, view["you"]["seat"])
    await bob.send({"t": "race_resign", "race": race})
    await bob.expect("race", T, where=lambda m: m["race"] == race and m["racers"][1]["status"] == "resigned")
    await ann.send({"t": "race_resign", "race": race})
    got_a, got_b = await _result(ann, race), await _result(bob, race)
    assert got_a["state"] == got_b["state"] == "rated"
    # the race's final order, as the races code ranks it (the tie rule is theirs), decides who gains
    races = pool_server.ctx.get(RaceWire).service
    loaded = await races.load_with_seats(race)
    order = [r.player for r in loaded[0].ranking(loaded[1])]
    by_player = {ann.player: got_a, bob.player: got_b}
    assert by_player[order[0]]["delta"] > 0 > by_player[order[1]]["delta"]
    assert got_a["provisional"] and got_b["provisional"]
    ratings = pool_server.ctx.get(PoolService).ratings
    assert len(await ratings.history(ann.player, "easy")) == 1
    # the race's aftermath again (another instance, a retry) changes nothing
    await pool_server.ctx.get(PoolService).aftermath.rate_race(*loaded)
    assert len(await ratings.history(ann.player, "easy")) == 1
    assert (await ratings.get(ann.player, "easy")).rating == got_a["rating"]


async def test_dodging_in_the_countdown_costs_a_loss_after_the_allowance(
    settings: Settings, tmp_path: Any, clients: list[Client]
) -> None:
    """Cheater: leaves each race in its countdown, when the opponent looks strong. A countdown of its own
    server lasts 4 s, so that the leave comes in it on a loaded machine (FAST's 600 ms did not)."""
    slow_start = replace(FAST, countdown_ms=4_000)
    races = replace(settings.races, review_min_moves=20)
    async with servers.pool_server(settings, tmp_path, races, pool=slow_start) as server:
        await dodge(server, clients)


async def dodge(pool_server: RunningServer, clients: list[Client]) -> None:
    dodger = await member(pool_server, clients)
    ratings = pool_server.ctx.get(PoolService).ratings
    states = []
    for _ in range(FAST.dodge_limit + 1):
        await seek(dodger)
        race = (await found(dodger))["race"]
        await race_of(dodger, race)
        await dodger.send({"t": "race_leave", "race": race})  # in the countdown: a resignation
        await dodger.expect(
            "race",
            T,
            where=lambda m, race=race: (
                m["race"] == race
                and any(r["player"] == dodger.player and r["status"] == "resigned" for r in m["racers"])
            ),
        )
        states.append((await _result(dodger, race))["state"])
    assert states == ["casual"] * FAST.dodge_limit + ["rated"]
    assert (await ratings.get(dodger.player, "easy")).rating < 1500


async def test_a_result_held_for_review_changes_no_rating_and_flags_the_player(
    pool_server: RunningServer, clients: list[Client]
) -> None:
    """Cheater: a script plays at wire speed; its result is held, its rating unchanged, and from then on it
    is paired only with other flagged players."""
    fast = await member(pool_server, clients)
    await seek(fast)
    race = (await found(fast))["race"]
    view = await race_of(fast, race)
    state = await seat_state(fast, race, view["you"]["seat"])
    assert await play_out(fast, race, state, 100) > 100 + 20  # at wire speed: no human plays so fast
    assert (await _result(fast, race))["state"] == "held"
    pool = pool_server.ctx.get(PoolService)
    assert (await pool.ratings.get(fast.player, "easy")).races == 0
    assert await pool.ratings.flagged(fast.player)
    await seek(fast)
    shard = await pool_server.ctx.redis.get(f"pool:p:{{{fast.player}}}")
    assert b"|flagged|" in shard
    await fast.send({"t": "pool_leave"})
    await fast.expect("pool", T, where=lambda m: m["state"] == "idle")
    assert await pool.ratings.clear(race, int(time.time() * 1000))
    assert (await pool.ratings.get(fast.player, "easy")).races == 1


async def test_a_too_fast_result_on_another_board_flags_the_player_for_the_pool(
    pool_server: RunningServer, clients: list[Client]
) -> None:
    """Cheater: a script plays a ranked race of its own (a lobby, not the pool) at wire speed; its result is
    held, and from then on the pool pairs it only with other flagged players."""
    fast = await member(pool_server, clients)
    view = await new_race(fast, name="Fast", seats=1, ranked=True)
    race = view["race"]
    assert view["ranked"] and not view["pool"]
    await fast.send({"t": "race_start", "race": race})
    state = await seat_state(fast, race, 1)
    assert await play_out(fast, race, state, 100) > 100 + 20  # at wire speed: no human plays so fast
    await fast.expect("race", T, where=lambda m: m["race"] == race and m["phase"] == "finished")
    pool = pool_server.ctx.get(PoolService)
    await until(lambda: pool.ratings.flagged(str(fast.player)), "the too-fast player flagged")
    await seek(fast)
    assert b"|flagged|" in await pool_server.ctx.redis.get(f"pool:p:{{{fast.player}}}")
    await fast.send({"t": "pool_leave"})
    await fast.expect("pool", T, where=lambda m: m["state"] == "idle")


async def test_a_bot_authors_bot_races_in_the_pool_from_the_command_line_client(
    pool_server: RunningServer, clients: list[Client]
) -> None:
    """``golfrace bot --strength N`` (its client, quick): seeks, races a server bot, sees its place."""
    client = Client(pool_server.ws, headers={"X-Forwarded-For": net()}, name="Author")
    clients.append(client)
    await client.start(T)
    result = await asyncio.wait_for(race_once(client, 4, "easy", random.Random(3), median_ms=20.0), 60)
    assert result.racers == 1 + FAST.bot_racers and result.place in (1, 2)
    assert result.status in ("won", "stuck") and result.rating is None  # a guest: casual


def test_golfrace_bot_refuses_a_strength_off_the_ladder(capsys: pytest.CaptureFixture[str]) -> None:
    from golfrace.cli import main

    assert main(["bot", "ws://127.0.0.1:1/ws", "--strength", "9"]) == 2
    assert "--strength is 1-5" in capsys.readouterr().err


async def test_a_seeker_gone_before_the_race_was_made_is_out_of_it_without_a_dodge(
    pool_server: RunningServer, clients: list[Client]
) -> None:
    from golfrace.pool.pairing import Group, Seeker

    pool = pool_server.ctx.get(PoolService)
    ann = await member(pool_server, clients)
    ghost = "p" + secrets.token_hex(8)
    await make_account_record(pool_server.ctx.redis, ghost, "u" + ghost[1:9])
    now = int(time.time() * 1000)
    group = Group(
        (Seeker(str(ann.player), 1500, "n1", "ranked", now), Seeker(ghost, 1500, "n2", "ranked", now)),
        queue="ranked",
    )
    race = await pool.make_race("easy", group)
    pool._found({"players": [ghost], "race": race.id, "rules": "easy", "starts_at": race.starts_at})
    view = await race_of(ann, race.id)
    if not any(r["player"] == ghost and r["status"] == "resigned" for r in view["racers"]):
        await ann.expect(
            "race",
            T,
            where=lambda m: any(r["player"] == ghost and r["status"] == "resigned" for r in m["racers"]),
        )
    assert (await first_move(ann, race.id))["t"] == "ack"  # after the countdown: no dodge of Ann's either
    await ann.send({"t": "race_resign", "race": race.id})
    assert (await _result(ann, race.id))["state"] == "rated"
    assert not await pool_server.ctx.redis.exists(f"pool:dodges:{{{ghost}}}")
    assert (await pool.ratings.get(ghost, "easy")).races == 0


async def test_bad_pool_requests_get_a_stable_error(
    pool_server: RunningServer, clients: list[Client]
) -> None:
    import httpx

    eve = await guest(pool_server, clients)
    await eve.send({"t": "pool_join", "rules": "hard"})
    assert (await eve.expect("error", T))["code"] == "bad_field"
    await eve.send({"t": "pool_join"})
    assert (await eve.expect("error", T))["code"] == "bad_field"
    # a second identity asks for the result of someone else's quick race: as if it did not exist
    ann, bob = await guest(pool_server, clients), await guest(pool_server, clients)
    await seek(ann)
    await seek(bob)
    race = (await found(ann))["race"]
    await eve.send({"t": "pool_result", "race": race})
    assert (await eve.expect("error", T))["code"] == "race_not_found"
    async with httpx.AsyncClient(base_url=pool_server.http, timeout=T) as http:
        bad = await http.get("/api/ratings/hard")
        assert (bad.status_code, bad.json()["error"]) == (400, "bad_field")
        anonymous = await http.get("/api/players/me/ratings")
        assert (anonymous.status_code, anonymous.json()["error"]) == (401, "bad_token")
        for limit in ("9999", "0", "x", "1e3"):
            board = await http.get("/api/ratings/easy", params={"limit": limit})
            assert (board.status_code, board.json()["error"]) == (400, "bad_option"), limit
        assert (await http.get("/api/ratings/easy", params={"limit": "5"})).json()["rules"] == "easy"


async def test_the_pool_bot_waits_for_a_server_not_yet_answering(settings: Settings) -> None:
    """Issue 20.13: ``golfrace bot --strength`` waits, saying so, for a server that cannot take players yet
    (here: not listening yet), instead of giving up at once; it connects once the server is there."""
    port = free_port()
    said: list[str] = []
    bot = asyncio.create_task(run_pool(f"ws://127.0.0.1:{port}/ws", 1, 0, say=said.append))
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + T
        while not said:
            assert not bot.done(), bot  # it gave up
            assert loop.time() < deadline, "no line said"
            await asyncio.sleep(0.05)
        assert said[0].startswith("waiting for the server: ") and said[0].endswith("(retrying)"), said
        async with running_server(settings.with_(port=port)):
            assert await asyncio.wait_for(bot, T) == []
    finally:
        bot.cancel()
