"""Races over real websockets and a real Redis: every frame each client receives is decoded and checked."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from golfrace.engine import Card, Game, GameCode, Rules, Status
from golfrace.engine.rules import fits
from golfrace.races.followers import RaceWire
from golfrace.settings import Settings
from golfrace_client.client import Client
from golfrace_testkit.servers import running_server

from ..accounts.helpers import sign_in_client
from ..clock import MovableClock
from .helpers import won_deal

T = 10.0  # seconds: the longest any single wait may take
DEAL_TRIES = 8  # a connection may follow 16 races
CARD = re.compile(r"^(?:[A2-9TJQK][CDHS]|X[12])$")


async def new_race(client: Client, **fields: Any) -> dict[str, Any]:
    await client.send({"t": "race_new", **fields})
    return await client.expect("race", T)


async def join(client: Client, race: str, **fields: Any) -> dict[str, Any]:
    await client.send({"t": "race_join", "race": race, **fields})
    return await client.expect("race", T, where=lambda m: m["race"] == race)


async def start(host: Client, race: str, *others: Client) -> dict[str, Any]:
    await host.send({"t": "race_start", "race": race})
    view = await host.expect("race", T, where=lambda m: m["race"] == race and m["phase"] == "countdown")
    for c in others:
        await c.expect("race", T, where=lambda m: m["race"] == race and m["phase"] == "countdown")
    return view


async def wait_start(view: dict[str, Any], clock: MovableClock | None = None) -> None:
    """Until the race of ``view`` (a countdown) runs: ``clock`` (the server's) is moved to its start; a
    server in another process is waited for in real time."""
    if clock is not None:
        await clock.advance_to(view["starts_at"])
    else:
        await asyncio.sleep(max(0, view["starts_at"] - view["now"]) / 1000 + 0.05)


async def act(client: Client, race: str, seq: int, move: dict[str, Any]) -> dict[str, Any]:
    """A move with ``race_act``, the alias of ``act`` on the caller's seat (opened by the first one)."""
    await client.send({"t": "race_act", "race": race, "seq": seq, **move})
    return await client.expect(
        None, T, where=lambda m: m.get("t") in ("ack", "refused") and m.get("seq") == seq
    )


async def two_racers(make_client: Any) -> tuple[str, Client, Client]:
    """Ann (the host, seat 1) and Bob (seat 2) in a two-seat race, started and running (a server without
    countdown), both having seen it run."""
    ann, bob = await make_client(name="Ann"), await make_client(name="Bob")
    rid = (await new_race(ann, name="Ann", seats=2))["race"]
    await join(bob, rid, name="Bob")
    await ann.send({"t": "race_start", "race": rid})
    for c in (ann, bob):  # the start's race event has reached this instance's followers
        await c.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "running")
    return rid, ann, bob


async def open_seat(client: Client, race: str, seat: int) -> dict[str, Any]:
    """The racer's seat, an ordinary game: its snapshot."""
    game = f"{race}-{seat}"
    await client.send({"t": "open", "game": game, "role": "player"})
    return await client.expect("snapshot", T, where=lambda m: m["game"] == game)


async def seat_snapshot(client: Client, race: str) -> dict[str, Any]:
    """The snapshot of the caller's seat that their first ``race_act`` brought."""
    return await client.expect("snapshot", T, where=lambda m: m["game"].startswith(race + "-"))


def greedy(state: dict[str, Any]) -> dict[str, Any] | None:
    """A move from what the racer sees: the first column that fits, else a draw."""
    discard = Card.parse(state["discard"]) if state["discard"] else None
    for i, col in enumerate(state["columns"]):
        if col and fits(Card.parse(col[-1]), discard, Rules(state["rules"])):
            return {"a": "tap", "col": i + 1}
    return {"a": "draw"} if state["stock_count"] else None


def greedy_score(code: GameCode) -> int:
    """The score ``greedy`` play reaches on ``code`` (the engine lists the taps by column, then the draw)."""
    game = Game.new(code)
    while game.status is Status.PLAYING:
        game = game.apply(game.legal_actions()[0])
    return game.score


def apply_diff(state: dict[str, Any], d: dict[str, Any]) -> None:
    if "removed" in d:
        state["columns"][d["removed"]["col"] - 1].pop()
    if "restored" in d:
        state["columns"][d["restored"]["col"] - 1].append(d["restored"]["card"])
    for key in ("discard", "stock_count", "score", "moves", "status"):
        state[key] = d[key]


async def play_out(client: Client, race: str, state: dict[str, Any], seq: int, limit: int = 400) -> int:
    state = json.loads(json.dumps(state))  # a copy: the received frames stay as they arrived
    while state["status"] == "playing" and seq < limit:
        move = greedy(state)
        if move is None:
            break
        seq += 1
        answer = await act(client, race, seq, move)
        assert answer["t"] == "ack", answer
        d = await client.expect("diff", T, where=lambda m, v=answer["v"]: m["v"] == v)
        apply_diff(state, d)
    return seq


def cards_in(frame: Any) -> set[str]:
    out: set[str] = set()
    if isinstance(frame, dict):
        for v in frame.values():
            out |= cards_in(v)
    elif isinstance(frame, list):
        for v in frame:
            out |= cards_in(v)
    elif isinstance(frame, str) and CARD.match(frame):
        out.add(frame)
    return out


async def race_results_metric(server: Any, status: str) -> float:
    """``golfrace_race_results_total{status=...}`` as the server's /metrics shows it."""
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        text = (await http.get("/metrics")).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "golfrace_race_results_total" and sample.labels.get("status") == status:
                return sample.value
    return 0.0


async def test_whole_race_two_racers_and_a_watcher(
    make_client: Any, server: Any, server_clock: MovableClock
) -> None:
    resigned_before = await race_results_metric(server, "resigned")
    ann = await make_client(name="Ann")
    await sign_in_client(server.ctx.redis, ann, "Ann")
    bob = await make_client(name="Bob")
    await sign_in_client(server.ctx.redis, bob, "Bob")  # a ranked race seats accounts only (fair play 19.2)
    eve = await make_client(name="Eve")
    # Ann must rank above Bob, who resigns at once: a random deal on which her greedy play ends stuck at 0
    # points (about 1 in 70) ties with Bob's 0, and his earlier finish ranks him first. Peek at the hidden
    # deal (the server runs in this process) and open another lobby until her play scores.
    service = server.ctx.get(RaceWire).service
    tried: set[str] = set()
    for _ in range(DEAL_TRIES):
        await ann.send({"t": "race_new", "name": "Ann"})
        lobby = await ann.expect("race", T, where=lambda m: m["race"] not in tried)
        rid = lobby["race"]
        tried.add(rid)
        if greedy_score((await service.load(rid)).code) > 0:
            break
    else:
        raise AssertionError(f"no deal among {DEAL_TRIES} where greedy play scores")
    assert (
        lobby["phase"] == "lobby" and lobby["code"] is None and lobby["ranked"] and lobby["you"]["seat"] == 1
    )
    joined = await join(bob, rid, name="Bob")
    assert [r["name"] for r in joined["racers"]] == ["Ann", "Bob"]
    await eve.send({"t": "watch", "race": rid})
    watch = await eve.expect("race_watch", T)
    assert watch["code"] is None and watch["you"] is None
    await bob.send({"t": "watch", "race": rid})
    assert (await bob.expect("error", T))["code"] == "own_race"
    await bob.send({"t": "race_start", "race": rid})
    assert (await bob.expect("error", T))["code"] == "not_host"

    view = await start(ann, rid, bob)
    assert view["starts_at"] - view["now"] >= 2900
    early = await act(ann, rid, 1, {"a": "draw"})
    assert early["t"] == "refused" and early["code"] == "race_not_started"
    ann_game = await seat_snapshot(ann, rid)
    bob_game = await open_seat(bob, rid, 2)
    assert ann_game["state"]["code"] is None and ann_game["state"]["columns"] == bob_game["state"]["columns"]
    await bob.send({"t": "open", "game": f"{rid}-1", "role": "player"})  # another racer's seat
    assert (await bob.expect("error", T))["code"] == "not_player"
    await eve.send({"t": "open", "game": f"{rid}-1", "role": "watcher"})  # boards go through the race
    assert (await eve.expect("error", T))["code"] == "not_player"
    await wait_start(view, server_clock)

    # Bob makes three moves and resigns; Ann plays on to her end.
    seq_b = 0
    state_b = json.loads(json.dumps(bob_game["state"]))
    for _ in range(3):
        seq_b += 1
        move = greedy(state_b)
        assert move is not None
        assert (await act(bob, rid, seq_b, move))["t"] == "ack"
        apply_diff(state_b, await bob.expect("diff", T, where=lambda m, v=seq_b: m["v"] == v))
    dup = await act(bob, rid, seq_b, {"a": "draw"})  # a resent seq is answered, not applied
    assert dup["t"] == "ack" and dup["v"] == 3
    await bob.send({"t": "race_resign", "race": rid})
    await bob.expect("race", T, where=lambda m: any(r["status"] == "resigned" for r in m["racers"]))
    await play_out(ann, rid, ann_game["state"], 1)
    final = await ann.expect("race", T, where=lambda m: m["phase"] == "finished")
    for c in (bob, eve):
        await c.expect("race", T, where=lambda m: m["phase"] == "finished")
    code = final["code"]
    assert code and code.startswith("GO1-E-")
    results = final["results"]
    assert [r["player"] for r in results] == [ann.player, bob.player]
    assert results[1]["status"] == "resigned" and results[1]["moves"] == 3
    assert "par" in final
    for _ in range(100):  # counted by the writer that ended the race, just after it published the end
        if await race_results_metric(server, "resigned") == resigned_before + 1:
            break
        await asyncio.sleep(0.05)
    assert await race_results_metric(server, "resigned") == resigned_before + 1

    # the records: public after the end; the deal shows what was face down
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        rec = (await http.get(f"/api/games/{results[0]['game']}")).json()
        board = (await http.get(f"/api/leaderboards/code/{code}", params={"token": ann.token})).json()
    stock = rec["deal"]["stock"]
    assert rec["code"] == code and rec["moves"] == results[0]["moves"]
    assert board["you"]["rank"] == 1 and board["entries"][0]["player"] == ann.player
    assert [e["player"] for e in board["entries"]] == [ann.player, bob.player]

    # every frame: no face-down card, no early code
    def check(frames: list[dict[str, Any]], name: str, code_free_until: int) -> None:
        drawn = 0
        for i, frame in enumerate(frames):
            if frame.get("t") == "diff" and "drawn" in frame:
                drawn += 1
            if frame.get("t") == "race_board" and frame["board"]["stock_count"] is not None:
                drawn = max(drawn, len(stock) - frame["board"]["stock_count"])
            hidden = set(stock[drawn:])
            leaked = cards_in(frame) & hidden
            assert not leaked, f"{name} frame {i} shows face-down {leaked}: {frame}"
            if i < code_free_until:
                assert code not in json.dumps(frame), f"{name} frame {i} reveals the code early"
            if frame.get("t") == "race_progress":
                assert not cards_in(frame), f"{name}: progress carries cards"

    def first(frames: list[dict[str, Any]], pred: Any) -> int:
        return next(i for i, f in enumerate(frames) if pred(f))

    seat_end = first(ann.frames, lambda f: f.get("t") == "diff" and f["status"] != "playing")
    assert "code" not in ann.frames[seat_end]  # fair play 11.2: the race shows it, once every racer is done
    ann_end = first(ann.frames, lambda f: f.get("t") == "race" and f["code"])
    bob_end = first(bob.frames, lambda f: f.get("t") == "race" and f["code"])
    eve_end = first(eve.frames, lambda f: f.get("t") == "race" and f["phase"] == "finished")
    assert ann.frames[ann_end]["phase"] == bob.frames[bob_end]["phase"] == "finished"
    check(ann.frames, "ann", ann_end)
    check(bob.frames, "bob", bob_end)
    check(eve.frames, "eve", eve_end)
    assert not [f for f in bob.frames if f.get("t") in ("race_board", "race_watch")]
    boards = [f for f in eve.frames if f.get("t") == "race_board"]
    assert len(boards) >= 4 and {b["board"]["seat"] for b in boards} == {1, 2}
    # the watcher counted: in its race_watch, read once it was (its own watchers event is older)
    assert any(
        f.get("t") in ("race_watch", "watchers") and f.get("watchers", f.get("n")) == 1 for f in eve.frames
    )


async def test_rematch_takes_everyone_who_accepts(make_client: Any, server_clock: MovableClock) -> None:
    ann = await make_client(name="Ann")
    bob = await make_client(name="Bob")
    rid = (await new_race(ann, name="Ann", seats=2))["race"]
    await join(bob, rid, name="Bob")
    view = await start(ann, rid, bob)
    await ann.send({"t": "race_rematch", "race": rid})
    assert (await ann.expect("error", T))["code"] == "race_not_finished"
    await wait_start(view, server_clock)
    for c in (ann, bob):
        await c.send({"t": "race_resign", "race": rid})
    await bob.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
    await ann.send({"t": "race_rematch", "race": rid})
    nxt = await ann.expect("race", T, where=lambda m: m["race"] != rid)
    assert nxt["phase"] == "lobby" and nxt["previous"] == rid and nxt["host"] == ann.player
    offer = await bob.expect("race", T, where=lambda m: m["race"] == rid and m["rematch"])
    assert offer["rematch"] == nxt["race"]
    await bob.send({"t": "race_rematch", "race": rid})
    seated = await bob.expect("race", T, where=lambda m: m["race"] == nxt["race"])
    assert [r["player"] for r in seated["racers"]] == [ann.player, bob.player]
    assert seated["options"] == {"undo": True, "limit": 0, "seats": 2}


async def test_reconnect_mid_race_resumes_the_seat(make_client: Any, server_clock: MovableClock) -> None:
    code, line = won_deal()
    ann = await make_client(name="Ann")
    lobby = await new_race(ann, code=code, name="Ann")
    rid = lobby["race"]
    assert lobby["typed"] and not lobby["ranked"] and lobby["code"] == code  # typed codes: casual
    view = await start(ann, rid)
    await wait_start(view, server_clock)
    for seq, tok in enumerate(line[:5], start=1):
        move = {"a": "draw"} if tok == "d" else {"a": "tap", "col": int(tok)}
        assert (await act(ann, rid, seq, move))["t"] == "ack"
    token, sid = ann.token, ann.sid
    await ann.close()
    again = await make_client(token=token, sid=sid)  # the same seq space: a resend is answered again
    assert again.player == ann.player
    resumed = await join(again, rid)
    assert resumed["you"]["seat"] == 1 and resumed["racers"][0]["moves"] == 5
    snap = await open_seat(again, rid, 1)
    assert snap["v"] == 5 and snap["state"]["moves"] == 5
    assert (await act(again, rid, 5, {"a": "draw"}))["v"] == 5  # resent: not applied
    for seq, tok in enumerate(line[5:], start=6):
        move = {"a": "draw"} if tok == "d" else {"a": "tap", "col": int(tok)}
        assert (await act(again, rid, seq, move))["t"] == "ack"
    done = await again.expect("race", T, where=lambda m: m["phase"] == "finished")
    assert done["results"][0]["status"] == "won" and done["results"][0]["score"] == 350


async def test_time_limit_ends_the_race(make_client: Any, server: Any, server_clock: MovableClock) -> None:
    ann = await make_client(name="Ann")
    rid = (await new_race(ann, name="Ann", limit=60, undo=False))["race"]
    view = await start(ann, rid)
    assert view["deadline"] == view["starts_at"] + 60_000
    await wait_start(view, server_clock)
    assert (await act(ann, rid, 1, {"a": "draw"}))["t"] == "ack"
    undo = await act(ann, rid, 2, {"a": "undo"})
    assert undo["t"] == "refused" and undo["code"] == "undo_disabled"
    assert (await act(ann, rid, 2, {"a": "draw"})) == undo  # the gate's answer is this seq's answer
    await server_clock.advance_to(view["deadline"] + 20)  # the race's timer fires: nobody moves
    done = await ann.expect("race", T, where=lambda m: m["phase"] == "finished")
    assert done["ended_at"] == view["deadline"] and done["results"][0]["status"] == "timeout"
    assert done["results"][0]["elapsed"] == 60_000
    late = await act(ann, rid, 3, {"a": "draw"})
    assert late["t"] == "refused" and late["code"] == "race_over"
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        assert (await http.get(f"/api/games/{rid}-1")).json()["status"] == "timeout"
        assert (await http.get("/api/games/nope-1")).status_code == 404
        page = await http.get(f"/r/{rid}")
        assert page.status_code == 200 and "html" in page.headers["content-type"]


async def test_game_record_is_hidden_while_the_race_runs(
    make_client: Any, server: Any, server_clock: MovableClock
) -> None:
    ann = await make_client(name="Ann")
    bob = await make_client(name="Bob")
    rid = (await new_race(ann, name="Ann"))["race"]
    await join(bob, rid)
    view = await start(ann, rid, bob)
    await wait_start(view, server_clock)
    await ann.send({"t": "race_resign", "race": rid})
    await ann.expect("race", T, where=lambda m: m["racers"][0]["status"] == "resigned")
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        resp = await http.get(f"/api/games/{rid}-1")
        assert resp.status_code == 409 and resp.json()["error"] == "game_not_ended"
        race = (await http.get(f"/api/races/{rid}")).json()
        assert race["code"] is None and race["results"] is None


async def test_late_watcher_gets_snapshots_and_the_count_follows_connections(
    make_client: Any, server: Any, server_clock: MovableClock
) -> None:
    ann = await make_client(name="Ann")
    rid = (await new_race(ann, name="Ann"))["race"]
    view = await start(ann, rid)
    game = await open_seat(ann, rid, 1)
    await wait_start(view, server_clock)
    await play_out(ann, rid, game["state"], 0, limit=2)
    eve = await make_client(name="Eve")
    await eve.send({"t": "watch", "race": f"{rid}-1"})  # a race game id watches its race
    snap = await eve.expect("race_watch", T)
    assert snap["phase"] == "running" and snap["code"] is None and snap["boards"][0]["moves"] == 2
    tableau = {c for col in game["state"]["columns"] for c in col}
    shown = {c for col in snap["boards"][0]["columns"] for c in col}
    assert shown and shown <= tableau  # only tableau cards, no face-down stock card
    assert (await ann.expect("watchers", T, where=lambda m: m["n"] == 1))["race"] == rid
    await eve.close()
    await swept(server, eve)  # its end drops a closed connection's watch
    await ann.expect("watchers", T, where=lambda m: m["n"] == 0)
    await ann.send({"t": "watch", "race": "rnothing"})
    assert (await ann.expect("error", T))["code"] == "race_not_found"


async def test_bad_numbers_in_http_routes_are_400_or_404_never_500(server: Any) -> None:
    """Digits ``str.isdigit`` accepts but ``int`` does not (superscripts), or too many of them."""
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        for value in ("\u00b2", "1" * 5000, "-1", "1.5", ""):
            for name in ("limit", "offset"):
                resp = await http.get("/api/leaderboards/code/GO1-E-AAAAAAB", params={name: value})
                assert resp.status_code == 400 and resp.json()["error"] == "bad_option", (name, value)
        resp = await http.get("/api/games/rabc-\u00b2")
        assert resp.status_code == 404 and resp.json()["error"] == "game_not_found"


async def test_board_watches_count_toward_the_connection_limit(make_client: Any, server: Any) -> None:
    fan = await make_client(name="Fan")
    limit = server.settings.max_open_games
    for n in range(limit):
        await fan.send({"t": "board_watch", "board": f"daily:2020-01-{n + 1:02d}"})
        await fan.expect("board", T)
    await fan.send({"t": "board_watch", "board": "daily:2020-02-01"})
    error = await fan.expect("error", T)
    assert error["code"] == "too_many_games" and error["ref"] == "board_watch"
    await fan.send({"t": "board_unwatch", "board": "daily:2020-01-01"})  # room again
    await fan.send({"t": "board_watch", "board": "daily:2020-02-01"})
    assert (await fan.expect("board", T))["board"] == "daily:2020-02-01"


async def until(condition: Callable[[], bool], what: str) -> None:
    """Wait (at most ``T``) for ``condition()`` to hold: a positive marker of something the server did."""
    deadline = asyncio.get_running_loop().time() + T
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"not within {T} s: {what}")
        await asyncio.sleep(0.01)


def gone(server: Any, client: Client) -> bool:
    """Whether ``server`` saw ``client``'s connection end, and its close hook (``RaceWire.closed``) dropped
    what it followed and the races it joined."""
    wire = server.ctx.get(RaceWire)
    kept = (*wire.followers, *wire.joined)
    return not any(s.sid == client.sid for s in (*server.ctx.sessions, *kept))


async def swept(server: Any, client: Client) -> None:
    """Once ``server`` saw ``client``'s connection end: what it followed is dropped at once (no sweep)."""
    await until(lambda: gone(server, client), "the server saw the connection end")


async def test_a_racer_whose_every_connection_is_gone_leaves_the_lobby(
    make_client: Any, settings: Settings
) -> None:
    clock = MovableClock()  # a server of its own: the only timers on its clock are this test's
    async with running_server(settings.with_(port=0), clock=clock) as server:
        grace = server.settings.races.lobby_grace_s
        wire = server.ctx.get(RaceWire)
        ann = await make_client(server.ws, name="Ann")
        bob = await make_client(server.ws, name="Bob")
        rid = (await new_race(ann, name="Ann"))["race"]
        await join(bob, rid, name="Bob")
        bob_tab = await make_client(server.ws, token=bob.token)  # a second tab of Bob's: the same seat
        assert [r["name"] for r in (await join(bob_tab, rid))["racers"]] == ["Ann", "Bob"]

        async def seated() -> list[str]:
            async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
                return [r["name"] for r in (await http.get(f"/api/races/{rid}")).json()["racers"]]

        await bob_tab.send({"t": "unwatch", "race": rid})  # the other tab looks at another view: still there
        sweep = server.settings.races.sweep_interval_s
        await bob.close()  # one tab closed: the other one is still open
        await swept(server, bob)
        await until(lambda: wire.racers_here[(rid, bob.player)] == 1, "the server saw Bob's first tab go")
        assert clock.sleeping(longer_than=sweep) == 0  # so no grace timer was armed: nothing to take Bob out
        await clock.advance(grace + 1)
        assert await seated() == ["Ann", "Bob"]
        await bob_tab.close()  # the last one: after the grace, Bob is out of the lobby
        await swept(server, bob_tab)
        armed = "the grace timer of Bob's last tab is armed"
        await until(lambda: clock.sleeping(longer_than=sweep) == 1, armed)
        await clock.advance(grace - 1)
        assert await seated() == ["Ann", "Bob"]  # within the grace (the timer woke and slept on)
        await clock.advance(1)
        left = await ann.expect("race", T, where=lambda m: m["race"] == rid and len(m["racers"]) == 1)
        assert [r["name"] for r in left["racers"]] == ["Ann"] and left["host"] == ann.player
        assert await seated() == ["Ann"]
        await ann.send({"t": "race_start", "race": rid})  # and Ann starts alone
        await ann.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "countdown")


async def test_a_seat_is_played_like_a_solo_game(make_client: Any, server_clock: MovableClock) -> None:
    """open/act/resync on the seat's game id, the same answers as Play; the race's rules in the commit."""
    code, line = won_deal()
    ann = await make_client(name="Ann")
    rid = (await new_race(ann, code=code, name="Ann", seats=1, undo=False))["race"]
    game = f"{rid}-1"
    await ann.send({"t": "open", "game": game, "role": "player"})
    assert (await ann.expect("error", T))["code"] == "no_game"  # the lobby has no seat games
    view = await start(ann, rid)
    snap = await open_seat(ann, rid, 1)
    assert snap["v"] == 0 and snap["state"]["can_undo"] is False and snap["state"]["code"] == code
    await ann.send({"t": "act", "game": game, "seq": 1, "a": "draw"})  # the countdown: the gate says no
    early = await ann.expect("refused", T)
    assert early["code"] == "race_not_started" and early["message"] and early["game"] == game
    await wait_start(view, server_clock)
    move = {"a": "draw"} if line[0] == "d" else {"a": "tap", "col": int(line[0])}
    await ann.send({"t": "act", "game": game, "seq": 2, **move})
    diff = await ann.expect("diff", T, where=lambda m: m["game"] == game)
    ack = await ann.expect("ack", T, where=lambda m: m["seq"] == 2)
    assert diff["v"] == ack["v"] == 1 and diff["from"] == 0 and diff["can_undo"] is False
    await ann.send({"t": "act", "game": game, "seq": 2, "a": "draw"})  # resent: the same answer
    assert (await ann.expect("ack", T, where=lambda m: m["seq"] == 2)) == ack
    await ann.send({"t": "act", "game": game, "seq": 3, "a": "undo"})
    assert (await ann.expect("refused", T, where=lambda m: m["seq"] == 3))["code"] == "undo_disabled"
    tab = await make_client(token=ann.token)  # another tab of Ann's: the seat's snapshot at its version
    assert (await open_seat(tab, rid, 1))["v"] == 1
    await ann.send({"t": "hint", "game": game})  # races get no hints
    assert (await ann.expect("error", T, where=lambda m: m.get("ref") == "hint"))["code"] == "no_game"
    await ann.send({"t": "race_resign", "race": rid})
    await ann.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
    await ann.send({"t": "act", "game": game, "seq": 4, "a": "draw"})  # after the end: never
    assert (await ann.expect("refused", T, where=lambda m: m["seq"] == 4))["code"] in (
        "game_ended",
        "race_over",
    )
