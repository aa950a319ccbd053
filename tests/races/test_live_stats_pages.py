"""The HTTP data of the watch list, the stats page and link previews, over a real server and a real Redis:
what a stranger, another player and the player themselves get from each endpoint."""

from __future__ import annotations

import asyncio
import html
import struct
import zlib
from pathlib import Path
from typing import Any

import httpx

from golfrace.engine.i18n import catalog
from golfrace.races.preview import png
from golfrace.settings import Settings
from golfrace_testkit.servers import running_server
from tests.browser.helpers import EXAMPLE_CODE, EXAMPLE_WIN

from ..accounts.helpers import sign_in_client
from ..clock import MovableClock
from .test_wire import CARD, T, cards_in, join, new_race, open_seat, start, wait_start


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:8]
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def png_pixel(data: bytes, x: int, y: int) -> tuple[int, int, int]:
    width, _ = png_size(data)
    idat = b"".join(
        data[i + 8 : i + 8 + struct.unpack(">I", data[i : i + 4])[0]]
        for i in _chunks(data)
        if data[i + 4 : i + 8] == b"IDAT"
    )
    raw = zlib.decompress(idat)
    stride = 1 + 3 * width
    row = raw[y * stride + 1 : (y + 1) * stride]
    return row[3 * x], row[3 * x + 1], row[3 * x + 2]


def _chunks(data: bytes) -> list[int]:
    out, i = [], 8
    while i < len(data):
        out.append(i)
        i += 12 + struct.unpack(">I", data[i : i + 4])[0]
    return out


def strings_in(frame: Any) -> set[str]:
    if isinstance(frame, dict):
        return {s for v in frame.values() for s in strings_in(v)} | {str(k) for k in frame}
    if isinstance(frame, list):
        return {s for v in frame for s in strings_in(v)}
    return {frame} if isinstance(frame, str) else set()


def test_png_rectangles_are_painted_in_order_and_clipped() -> None:
    data = png(10, 6, (1, 2, 3), [(2, 1, 4, 3, (200, 0, 0)), (4, 2, 20, 20, (0, 200, 0))])
    assert png_size(data) == (10, 6)
    assert png_pixel(data, 0, 0) == (1, 2, 3)
    assert png_pixel(data, 2, 1) == (200, 0, 0)
    assert png_pixel(data, 5, 3) == (0, 200, 0)  # the later rectangle on top
    assert png_pixel(data, 9, 5) == (0, 200, 0)  # clipped at the edge, not wrapped
    assert png_pixel(data, 3, 5) == (1, 2, 3)


async def test_live_list_shows_started_races_without_codes_or_cards(
    make_client: Any, server: Any, server_clock: MovableClock
) -> None:
    host, guest = await make_client(), await make_client()
    for client in (host, guest):  # a ranked race seats accounts only (fair play 19.2)
        await sign_in_client(server.ctx.redis, client)
    lobby = await new_race(host, name="Ann")
    rid = lobby["race"]
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        listed = (await http.get("/api/races/live")).json()["races"]
        assert rid not in strings_in(listed), "a lobby's id is not listed: strangers could take its seats"
        lobbies = [r for r in listed if r["phase"] == "lobby" and [x["name"] for x in r["racers"]] == ["Ann"]]
        assert lobbies and lobbies[0]["race"] is None, "a lobby about to start is listed (issue 20.3)"
        await join(guest, rid, name="Bob")
        view = await start(host, rid, guest)
        await wait_start(view, server_clock)
        # one move, so the progress shows
        state = (await open_seat(host, rid, 1))["state"]
        await host.send({"t": "race_act", "race": rid, "seq": 1, "a": "draw"})
        await host.expect("diff", T, where=lambda m: m["game"] == f"{rid}-1")
        body = (await http.get("/api/races/live")).json()
        mine = [r for r in body["races"] if r["race"] == rid]
        assert len(mine) == 1, body
        entry = mine[0]
        assert entry["phase"] == "running" and entry["ranked"] is True and entry["rules"] == state["rules"]
        assert [(r["seat"], r["name"], r["status"]) for r in entry["racers"]] == [
            (1, "Ann", "playing"),
            (2, "Bob", "playing"),
        ]
        assert {"code", "player", "columns", "discard", "stock"}.isdisjoint(strings_in(entry))
        assert not cards_in(body), "no card of a ranked race in the list"
        assert host.player not in strings_in(body) and guest.player not in strings_in(body)
        for client in (host, guest):
            await client.send({"t": "race_resign", "race": rid})
        await host.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
        after = (await http.get("/api/races/live")).json()["races"]
        assert rid not in [r["race"] for r in after], "a finished race leaves the list"


async def test_a_daily_attempt_is_never_listed(make_client: Any, server: Any) -> None:
    player = await make_client()
    await player.send({"t": "daily_play"})
    race = await player.expect("race", T, where=lambda m: m.get("daily") is not None)
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        listed = (await http.get("/api/races/live")).json()["races"]
    assert race["race"] not in [r["race"] for r in listed]
    await player.send({"t": "race_resign", "race": race["race"]})
    await player.expect("race", T, where=lambda m: m["race"] == race["race"] and m["phase"] == "finished")


async def poll(http: Any, headers: dict[str, str], done: Any) -> dict[str, Any]:
    deadline = asyncio.get_running_loop().time() + T
    while True:
        body: dict[str, Any] = (await http.get("/api/players/me/stats", headers=headers)).json()
        if done(body) or asyncio.get_running_loop().time() > deadline:
            return body
        await asyncio.sleep(0.05)


async def test_stats_count_a_players_own_games_only(
    make_client: Any, server: Any, server_clock: MovableClock
) -> None:
    ann, bob = await make_client(), await make_client()
    # Ann wins the example deal in Play, then resigns a race against Bob
    view = await ann.new(code=EXAMPLE_CODE)
    for action in EXAMPLE_WIN:
        a = type(action).__name__.lower()
        col = getattr(action, "column", None)
        answer = await ann.act(view.game, "tap" if a == "tap" else a, col=col)
        assert answer["t"] == "ack", answer
    lobby = await new_race(ann, name="Ann")
    rid = lobby["race"]
    await join(bob, rid, name="Bob")
    await wait_start(await start(ann, rid, bob), server_clock)
    await ann.send({"t": "race_resign", "race": rid})
    await bob.send({"t": "race_resign", "race": rid})
    await ann.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        headers = {"Authorization": f"Bearer {ann.token}"}
        # the race's records are kept just after its last `race` message went out
        mine = await poll(http, headers, lambda s: s["played"] == 2)
        assert mine["played"] == 2 and mine["won"] == 1 and mine["win_rate"] == 0.5
        assert mine["modes"]["solo"] == {
            "played": 1,
            "won": 1,
            "best_score": 350,
            "best_time": mine["modes"]["solo"]["best_time"],
        }
        assert isinstance(mine["modes"]["solo"]["best_time"], int)
        assert mine["modes"]["race"]["played"] == 1 and mine["modes"]["race"]["won"] == 0
        assert mine["modes"]["race"]["best_time"] is None  # no race won
        assert [(g["mode"], g["status"], g["score"]) for g in mine["recent"]] == [
            ("solo", "won", 350),
            ("race", "resigned", 0),
        ]
        assert mine["win_streak"] == 0 and mine["best_win_streak"] == 1
        theirs = await poll(http, {"Authorization": f"Bearer {bob.token}"}, lambda s: s["played"] == 1)
        assert theirs["played"] == 1 and theirs["modes"]["solo"]["played"] == 0, (
            "Bob sees his race, not Ann's win"
        )
        assert ann.player not in strings_in(theirs) and view.game not in strings_in(theirs)
        for bad in ({}, {"Authorization": "Bearer not-a-token"}):
            answer = await http.get("/api/players/me/stats", headers=bad)
            assert answer.status_code == 401 and answer.json()["error"] == "bad_token"


GOLD_PIXEL = bytes((241, 199, 91))


def text_pixels(answer: httpx.Response) -> int:
    """Gold pixels in the preview's top right, where its words go (the table of backs is on the left)."""
    data = answer.content
    at, idat = 8, b""
    while at < len(data):
        (size,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        if kind == b"IDAT":
            idat += data[at + 8 : at + 8 + size]
        at += 12 + size
    width, _height = png_size(data)
    raw = zlib.decompress(idat)
    stride = 1 + 3 * width
    rows = [raw[y * stride + 1 : (y + 1) * stride] for y in range(60, 200)]  # filter 0 rows: see preview.py
    return sum(row[3 * x : 3 * x + 3] == GOLD_PIXEL for row in rows for x in range(800, width - 40))


async def test_race_and_watch_links_carry_preview_tags(
    make_client: Any, settings: Settings, tmp_path: Path
) -> None:
    (tmp_path / "index.html").write_text(
        '<!doctype html><html><head><meta name="description" content="x"><title>Golf Race</title></head>'
        "<body></body></html>"
    )
    async with running_server(settings.with_(static_dir=str(tmp_path))) as srv:
        host, guest = await make_client(srv.ws), await make_client(srv.ws)
        lobby = await new_race(host, name='<b>"Ann"</b>')
        rid = lobby["race"]
        await join(guest, rid)
        async with httpx.AsyncClient(base_url=srv.http, timeout=T) as http:  # a lobby's link asks to join
            page = (await http.get(f"/r/{rid}")).text
            assert '<meta property="og:title" content="Join my Golf solitaire race">' in page
            assert 'content="Join my' not in (await http.get(f"/watch/{rid}")).text  # a watch link, to watch
            assert text_pixels(await http.get(f"/og/{rid}.png")) > 500  # "GOLF RACE" in gold
        await wait_start(await start(host, rid, guest))
        code = (await open_seat(host, rid, 1))["state"]["code"]
        assert code is None  # a ranked random race: its code is secret
        async with httpx.AsyncClient(base_url=srv.http, timeout=T) as http:
            page = (await http.get(f"/r/{rid}")).text
            ui = catalog("en")["ui"]["og"]
            # a race on cannot be joined: its links ask to watch it (issue 20, 11)
            assert f'<meta property="og:title" content="{ui["watch_title"]}">' in page
            assert '<html lang="en" dir="ltr">' in page
            assert '<meta property="og:description" content="2 racers · Running.' in page
            assert f'<meta property="og:image" content="{srv.http}/og/{rid}.png">' in page
            assert '<meta name="twitter:card" content="summary_large_image">' in page
            assert f"<title>{ui['watch_title']}</title>" in page and 'content="x"' not in page
            assert "<b>" not in page and "GO1-" not in page and not CARD.search(page)
            he = (await http.get(f"/watch/{rid}?lang=he")).text
            assert f'<meta property="og:title" content="{catalog("he")["ui"]["og"]["watch_title"]}">' in he
            assert '<html lang="he" dir="rtl">' in he
            running = catalog("he")["ui"]["phase"]["running"]
            assert f'<meta property="og:description" content="2 מתחרים · {running}.' in he
            unknown = (await http.get("/watch/nosuchgame")).text
            assert f'content="{srv.http}/og/table.png"' in unknown
            image = await http.get(f"/og/{rid}.png")
            assert image.headers["content-type"] == "image/png" and png_size(image.content) == (1200, 630)
            assert png_size((await http.get("/og/table.png")).content) == (1200, 630)
            assert (await http.get("/og/rnosuchrace0.png")).status_code == 404
            for size in (192, 512):
                assert png_size((await http.get(f"/icons/{size}.png")).content) == (size, size)
            for c in (host, guest):
                await c.send({"t": "race_resign", "race": rid})
            await host.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
            for path in (f"/r/{rid}", f"/watch/{rid}"):  # a finished race: its results, on either link
                done = (await http.get(path)).text
                assert f'<meta property="og:title" content="{ui["results_title"]}">' in done, path
            bad = await http.get("/icons/100.png")
            assert bad.status_code == 404 and bad.json()["error"] == "bad_option"


async def test_a_race_whose_racers_all_closed_their_tabs_ends_and_leaves_the_live_list(
    make_client: Any, settings: Settings
) -> None:
    """Issue 20.3: nobody finished, every tab closed: the idle forfeit does not wait for a finish, so the race
    ends ``idle_forfeit_s`` after the last move instead of staying ``running`` for days."""
    clock = MovableClock()  # a server of its own: the only timers on its clock are this test's
    async with running_server(settings.with_(port=0), clock=clock) as server:
        idle_s = server.settings.races.idle_forfeit_s
        host, guest = await make_client(server.ws, name="Ann"), await make_client(server.ws, name="Bob")
        rid = (await new_race(host, name="Ann"))["race"]
        await join(guest, rid, name="Bob")
        view = await start(host, rid, guest)
        await wait_start(view, clock)
        await open_seat(host, rid, 1)
        await host.send({"t": "race_act", "race": rid, "seq": 1, "a": "draw"})
        await host.expect("diff", T, where=lambda m: m["game"] == f"{rid}-1")
        async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
            listed = (await http.get("/api/races/live")).json()["races"]
            assert [r["phase"] for r in listed if r["race"] == rid] == ["running"]
            for client in (host, guest):
                await client.close()
            await clock.advance(idle_s + 1)
            loop = asyncio.get_running_loop()
            deadline = loop.time() + T
            while True:  # the timer's write, then the aftermath, follow the clock's move
                race = (await http.get(f"/api/races/{rid}")).json()
                if race.get("phase") == "finished" or loop.time() > deadline:
                    break
                await asyncio.sleep(0.05)
            assert race["phase"] == "finished", race
            assert {r["status"] for r in race["racers"]} == {"abandoned"}, race
            listed = (await http.get("/api/races/live")).json()["races"]
            assert rid not in [r["race"] for r in listed]


async def test_a_race_its_only_racer_left_ends_and_leaves_the_live_list(
    make_client: Any, settings: Settings
) -> None:
    """Issue 20.3: a host may start a race alone; once their tab is closed the race ends by the idle forfeit
    like a race of several, instead of staying ``running`` in the live list and Watch for days."""
    clock = MovableClock()
    async with running_server(settings.with_(port=0), clock=clock) as server:
        idle_s = server.settings.races.idle_forfeit_s
        host = await make_client(server.ws, name="Ann")
        rid = (await new_race(host, name="Ann"))["race"]
        await wait_start(await start(host, rid), clock)
        await open_seat(host, rid, 1)
        await host.send({"t": "race_act", "race": rid, "seq": 1, "a": "draw"})
        await host.expect("diff", T, where=lambda m: m["game"] == f"{rid}-1")
        async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
            listed = (await http.get("/api/races/live")).json()["races"]
            assert [r["phase"] for r in listed if r["race"] == rid] == ["running"]
            await host.close()
            await clock.advance(idle_s + 1)
            loop = asyncio.get_running_loop()
            deadline = loop.time() + T
            while True:  # the timer's write, then the aftermath, follow the clock's move
                race = (await http.get(f"/api/races/{rid}")).json()
                if race.get("phase") == "finished" or loop.time() > deadline:
                    break
                await asyncio.sleep(0.05)
            assert race["phase"] == "finished", race
            assert [r["status"] for r in race["racers"]] == ["abandoned"], race
            listed = (await http.get("/api/races/live")).json()["races"]
            assert rid not in [r["race"] for r in listed]


async def test_the_daily_has_a_page_of_its_own_and_browsers_get_the_app_for_a_404(
    settings: Settings, tmp_path: Path
) -> None:
    """Issue 20, 11: ``/daily`` is a page (the app on the daily, with its own preview, in the asked language
    and direction); an unknown path answers a browser the app with a 404, and a program its JSON error."""
    (tmp_path / "index.html").write_text(
        '<!doctype html><html lang="en" dir="ltr"><head><meta name="description" content="x">'
        "<title>Golf Race</title></head><body></body></html>"
    )
    async with (
        running_server(settings.with_(static_dir=str(tmp_path))) as srv,
        httpx.AsyncClient(base_url=srv.http, timeout=T) as http,
    ):
        daily = await http.get("/daily")
        assert daily.status_code == 200 and daily.headers["content-type"].startswith("text/html")
        og = catalog("en")["ui"]["og"]
        assert (
            f'<meta property="og:description" content="{html.escape(og["daily_description"])}">' in daily.text
        )
        assert f'<meta property="og:image" content="{srv.http}/og/daily.png">' in daily.text
        assert f'content="{og["daily_title"]} · 20' in daily.text  # with the day's date
        he = (await http.get("/daily?lang=he")).text
        assert '<html lang="he" dir="rtl">' in he
        assert catalog("he")["ui"]["og"]["daily_description"] in he
        assert text_pixels(await http.get("/og/daily.png")) > 500
        browser = await http.get("/no/such/page", headers={"accept": "text/html,application/xhtml+xml"})
        assert browser.status_code == 404 and "<title>Golf Race</title>" in browser.text
        program = await http.get("/no/such/page")
        assert program.status_code == 404 and program.json()["error"] == "not_found"
        api = await http.get("/api/no/such", headers={"accept": "text/html"})
        assert api.status_code == 404 and api.json()["error"] == "not_found"  # an API path stays JSON
