"""Friends over real websockets and a real Redis (issue 21.4): following, blocking, presence, challenges and
the friends' daily board, each with what a second identity (a follower, a blocked account, a guest, a racer
of the same race) learns from it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from golfrace.accounts.sessions import COOKIE
from golfrace.races.followers import RaceWire
from golfrace.store import friend_keys as keys
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer
from tests.clock import MovableClock

from ..accounts.conftest import PASSWORD
from .conftest import MakePal, T, ask, entry

pytestmark = pytest.mark.timeout(90)


async def listing(client: Client) -> dict[str, Any]:
    answer = await ask(client, {"t": "friends"}, "friends")
    assert answer["t"] == "friends", answer
    return answer


async def status_of(client: Client, username: str, wanted: str, timeout: float = T) -> dict[str, Any]:
    """Ask for the list until ``username``'s status is ``wanted`` (presence is stamped every 0.2 s)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found = entry(await listing(client), username)
        assert found is not None, username
        if found["status"] == wanted:
            return found
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"{username} is {found['status']}, not {wanted}")
        await asyncio.sleep(0.05)


async def follow(client: Client, username: str) -> dict[str, Any]:
    answer = await ask(client, {"t": "friend_follow", "name": username}, "friends")
    assert answer["t"] == "friends", answer
    return answer


async def secret_code(server: RunningServer, race_id: str) -> str:
    race = await server.app.state.ctx.get(RaceWire).service.storage.read_race(race_id)
    return str(race.code)


def frames_text(client: Client) -> str:
    return "\n".join(json.dumps(f, default=str) for f in client.frames)


async def test_following_is_one_way_can_be_undone_and_takes_an_account(
    make_pal: MakePal, fr_server: RunningServer
) -> None:
    ann, bob = await make_pal(display="Annie"), await make_pal()
    a, b = await ann.page(), await bob.page()
    after = await follow(a, bob.username.upper())  # any case
    assert [f["username"] for f in after["following"]] == [bob.username]
    assert set(after["following"][0]) == {"username", "name", "status", "race"}  # no player id
    assert bob.player not in frames_text(a)
    assert (await listing(b))["following"] == []  # one way
    again = await follow(a, bob.username)  # twice is once
    assert len(again["following"]) == 1
    undone = await ask(a, {"t": "friend_unfollow", "name": bob.username}, "friends")
    assert undone["following"] == []
    for name, code in ((ann.username, "own_account"), ("nobody" + bob.username[1:], "no_such_player")):
        refused = await ask(a, {"t": "friend_follow", "name": name}, "friends")
        assert (refused["t"], refused["code"]) == ("error", code), refused
    # a guest (no session), and an account's token without its session, learn nothing
    guest = Client(fr_server.ws)
    await guest.connect()
    await guest.hello()
    stolen = Client(fr_server.ws, token=a.welcome["token"])
    await stolen.connect()
    await stolen.hello()
    try:
        for client in (guest, stolen):
            for msg in (
                {"t": "friends"},
                {"t": "friend_follow", "name": bob.username},
                {"t": "friends_daily"},
            ):
                refused = await ask(client, msg, "friends")
                assert (refused["t"], refused["code"]) == ("error", "not_signed_in"), refused
    finally:
        await guest.close()
        await stolen.close()


async def test_a_friend_is_online_in_a_lobby_in_a_race_with_a_watch_link_and_never_a_code_or_card(
    make_pal: MakePal, fr_server: RunningServer, fr_clock: MovableClock
) -> None:
    ann, bob, cat = await make_pal(), await make_pal(), await make_pal()
    a = await ann.page()
    await follow(a, bob.username)
    assert entry(await listing(a), bob.username) == {
        "username": bob.username,
        "name": bob.username,
        "status": "offline",
        "race": None,
    }
    b = await bob.page()
    await status_of(a, bob.username, "online")
    # a lobby: the follower learns that, not its id (a lobby's id is its invitation)
    await b.send({"t": "race_new", "rules": "classic", "seats": 2})
    lobby = (await b.expect("race", T))["race"]
    await status_of(a, bob.username, "lobby")
    c = await cat.page()
    await c.send({"t": "race_join", "race": lobby})
    await c.expect("race", T, where=lambda m: m.get("race") == lobby)
    assert lobby not in frames_text(a)
    await b.send({"t": "race_start", "race": lobby})
    await b.expect("race", T, where=lambda m: m.get("phase") == "countdown")
    await fr_clock.advance(4)
    racing = await status_of(a, bob.username, "racing")
    assert racing["race"] == {"race": lobby, "phase": "running", "rules": "classic", "ranked": True}
    # Bob draws ahead of Cat: what Ann's watch link shows of Bob's board stays hidden
    for _ in range(3):
        seq = b.next_seq()
        await b.send({"t": "race_act", "race": lobby, "seq": seq, "a": "draw"})
        await b.expect("ack", T, where=lambda m, s=seq: m.get("seq") == s)
    await a.send({"t": "watch", "race": lobby})
    watch = await a.expect("race_watch", T)
    assert watch["code"] is None
    bobs = next(board for board in watch["boards"] if board["player"] == bob.player)
    assert bobs["hidden"] is True and bobs["discard"] is None
    code = await secret_code(fr_server, lobby)
    letters = code.split("-")[2]
    assert len(letters) == 26  # a ranked long code
    seen = frames_text(a)
    assert code not in seen and letters not in seen
    assert all(letters.encode() not in f for f in a.raw_frames if isinstance(f, bytes))
    # a racer in the same race who follows Bob learns nothing more either
    await follow(c, bob.username)
    assert (await status_of(c, bob.username, "racing"))["race"]["race"] == lobby
    assert letters not in frames_text(c)


async def test_a_daily_attempt_shows_as_daily_without_its_race(make_pal: MakePal) -> None:
    ann, bob = await make_pal(), await make_pal()
    a, b = await ann.page(), await bob.page()
    await follow(a, bob.username)
    await b.send({"t": "daily_play"})
    attempt = (await b.expect("race", T))["race"]
    found = await status_of(a, bob.username, "daily")
    assert found["race"] is None
    assert attempt not in frames_text(a)


async def test_a_closed_page_goes_offline(make_pal: MakePal) -> None:
    ann, bob = await make_pal(), await make_pal()
    a, b = await ann.page(), await bob.page()
    await follow(a, bob.username)
    await status_of(a, bob.username, "online")
    await b.close()
    await status_of(a, bob.username, "offline")


async def test_a_blocked_player_sees_an_offline_player_and_is_refused_as_if_offline(
    make_pal: MakePal,
) -> None:
    ann, bob, dan = await make_pal(), await make_pal(), await make_pal()
    a, b = await ann.page(), await bob.page()
    await follow(a, bob.username)
    await follow(a, dan.username)  # Dan never opens a page: the offline friend to compare with
    await follow(b, ann.username)
    await status_of(a, bob.username, "online")
    blocked = await ask(b, {"t": "friend_block", "name": ann.username}, "friends")
    assert blocked["following"] == []  # blocking hides them: no longer followed
    assert blocked["blocked"] == [{"username": ann.username, "name": ann.username}]
    shown = await status_of(a, bob.username, "offline")
    assert {k: v for k, v in shown.items() if k not in ("username", "name")} == {
        k: v for k, v in entry(await listing(a), dan.username).items() if k not in ("username", "name")
    }
    to_bob = await ask(a, {"t": "friend_challenge", "name": bob.username}, "challenge")
    to_dan = await ask(a, {"t": "friend_challenge", "name": dan.username}, "challenge")
    assert (to_bob["t"], to_bob["code"]) == (to_dan["t"], to_dan["code"]) == ("error", "friend_offline")
    assert {k: v for k, v in to_bob.items() if k != "rid"} == {k: v for k, v in to_dan.items() if k != "rid"}
    assert not [f for f in b.frames if f.get("t") == "challenge"]
    unblocked = await ask(b, {"t": "friend_unblock", "name": ann.username}, "friends")
    assert unblocked["blocked"] == []
    await status_of(a, bob.username, "online")


async def test_a_challenge_reaches_every_tab_and_two_tabs_accepting_at_once_make_one_race(
    make_pal: MakePal, fr_server: RunningServer
) -> None:
    ann, bob = await make_pal(display="Ann A"), await make_pal()
    a = await ann.page()
    b1, b2 = await bob.page(), await bob.page()
    other = await bob.page(enrol=False)  # a page that never asked for friends gets no notice
    refused = await ask(a, {"t": "friend_challenge", "name": bob.username}, "challenge")
    assert (refused["t"], refused["code"]) == ("error", "not_friend")
    await follow(a, bob.username)
    sent = await ask(a, {"t": "friend_challenge", "name": bob.username, "rules": "classic"}, "challenge")
    assert sent["t"] == "challenge", sent
    assert sent["from"] == {"username": ann.username, "name": "Ann A"}
    assert sent["to"] == {"username": bob.username, "name": bob.username}
    assert sent["rules"] == "classic" and sent["expires_at"] > sent["now"]
    cid = sent["challenge"]
    for page in (b1, b2):
        notice = await page.expect("challenge", T, where=lambda m: m.get("challenge") == cid)
        assert ann.player not in json.dumps(notice)
    # the same challenge again is the first one: no second notice
    again = await ask(a, {"t": "friend_challenge", "name": bob.username}, "challenge")
    assert again["challenge"] == cid
    # the challenger cannot accept their own challenge
    self_accept = await ask(a, {"t": "challenge_answer", "challenge": cid, "accept": True}, "challenge_end")
    assert self_accept["code"] == "challenge_gone"
    answers = await asyncio.gather(
        *(
            ask(p, {"t": "challenge_answer", "challenge": cid, "accept": True}, "challenge_end")
            for p in (b1, b2)
        )
    )
    won = [x for x in answers if x["t"] == "challenge_end"]
    lost = [x for x in answers if x["t"] == "error"]
    assert len(won) == 1 and [x["code"] for x in lost] == ["challenge_gone"], answers
    race_id = won[0]["race"]
    assert won[0]["outcome"] == "accepted" and race_id
    for page in (a, b1, b2):
        end = await page.expect(
            "challenge_end", T, where=lambda m: m.get("challenge") == cid and "rid" not in m
        )
        assert end == {"t": "challenge_end", "challenge": cid, "outcome": "accepted", "race": race_id}
    notices = [f for f in b1.frames if f.get("t") == "challenge" and "rid" not in f]
    assert len(notices) == 1
    assert not [f for f in other.frames if f.get("t") in ("challenge", "challenge_end")]
    # both land in the race, seated, its countdown running
    views = []
    for page in (a, b1):
        view = await ask(page, {"t": "race_join", "race": race_id}, "race")
        views.append(view)
    assert {v["you"]["seat"] for v in views} == {1, 2}
    assert views[0]["phase"] in ("countdown", "running") and views[0]["ranked"] is True
    assert views[0]["rules"] == "classic" and views[0]["code"] is None
    assert {r["name"] for r in views[0]["racers"]} == {"Ann A", bob.username}


async def test_a_challenge_declined_or_withdrawn_ends_on_both_sides(make_pal: MakePal) -> None:
    ann, bob = await make_pal(), await make_pal()
    a, b = await ann.page(), await bob.page()
    await follow(a, bob.username)
    for who, outcome in ((b, "declined"), (a, "withdrawn")):
        sent = await ask(a, {"t": "friend_challenge", "name": bob.username}, "challenge")
        cid = sent["challenge"]
        await b.expect("challenge", T, where=lambda m, c=cid: m.get("challenge") == c)
        answer = await ask(who, {"t": "challenge_answer", "challenge": cid, "accept": False}, "challenge_end")
        assert answer["outcome"] == outcome and answer["race"] is None
        for page in (a, b):
            await page.expect(
                "challenge_end",
                T,
                where=lambda m, c=cid, o=outcome: m.get("challenge") == c and m["outcome"] == o,
            )
        late = await ask(b, {"t": "challenge_answer", "challenge": cid, "accept": True}, "challenge_end")
        assert late["code"] == "challenge_gone"
    # someone else's challenge id tells nothing
    sent = await ask(a, {"t": "friend_challenge", "name": bob.username}, "challenge")
    eve = await (await make_pal()).page()
    stranger = await ask(eve, {"t": "challenge_answer", "challenge": sent["challenge"], "accept": True}, "x")
    assert stranger["code"] == "challenge_gone"


async def test_follow_from_a_finished_races_results(
    make_pal: MakePal, fr_server: RunningServer, fr_clock: MovableClock, make_client: Any
) -> None:
    ann, bob, cat = await make_pal(), await make_pal(), await make_pal()
    a, b, c = await ann.page(), await bob.page(), await cat.page()
    guest = Client(fr_server.ws)
    await guest.connect()
    await guest.hello()
    try:
        await b.send({"t": "race_new", "seats": 3, "ranked": False})  # a guest takes a seat: casual
        race_id = (await b.expect("race", T))["race"]
        for page in (c, guest):
            await page.send({"t": "race_join", "race": race_id})
            await page.expect("race", T, where=lambda m: m.get("race") == race_id)
        await b.send({"t": "race_start", "race": race_id})
        await b.expect("race", T, where=lambda m: m.get("phase") == "countdown")
        early = await ask(a, {"t": "friend_follow", "race": race_id, "seat": 2}, "friends")
        assert early["code"] == "no_such_player"  # results are not public while the race is on
        await fr_clock.advance(4)
        for page in (b, c, guest):
            await page.send({"t": "race_resign", "race": race_id})
        await b.expect("race", T, where=lambda m: m.get("phase") == "finished")
        followed = await ask(a, {"t": "friend_follow", "race": race_id, "seat": 2}, "friends")
        assert [f["username"] for f in followed["following"]] == [cat.username]
        as_guest = await ask(a, {"t": "friend_follow", "race": race_id, "seat": 3}, "friends")
        assert as_guest["code"] == "no_such_player"  # a guest is no one to follow
        half = await ask(a, {"t": "friend_follow", "race": race_id}, "friends")
        assert half["code"] == "bad_field"
    finally:
        await guest.close()


async def test_the_friends_daily_board_holds_only_what_the_public_board_holds(make_pal: MakePal) -> None:
    ann, bob, cat = await make_pal(), await make_pal(display="Bobby"), await make_pal()
    a, b, c = await ann.page(), await bob.page(), await cat.page()
    await follow(a, bob.username)
    await b.send({"t": "daily_play", "rid": "d"})
    attempt = await b.expect("race", T, where=lambda m: m.get("rid") == "d")
    board = await ask(a, {"t": "friends_daily"}, "friends_daily")
    assert board["entries"] == []  # an attempt still on is on no board
    await b.send({"t": "race_resign", "race": attempt["race"]})
    await b.expect("race", T, where=lambda m: m.get("phase") == "finished")

    async def board_with_bob() -> dict[str, Any]:
        for _ in range(100):
            board = await ask(a, {"t": "friends_daily"}, "friends_daily")
            if board["entries"]:
                return board
            await asyncio.sleep(0.05)
        raise TimeoutError("Bob's result never reached the friends' board")

    board = await board_with_bob()
    assert board["date"] == attempt["daily"]
    (row,) = board["entries"]
    assert {k: row[k] for k in ("username", "name", "you")} == {
        "username": bob.username,
        "name": "Bobby",
        "you": False,
    }
    assert set(row) == {"rank", "username", "name", "score", "elapsed", "moves", "you"}  # no game id, no code
    assert (await ask(c, {"t": "friends_daily"}, "friends_daily"))["entries"] == []  # Cat follows nobody


async def test_a_deleted_account_leaves_every_list_and_takes_its_own(
    make_pal: MakePal, fr_server: RunningServer, fr_clock: MovableClock
) -> None:
    ann, bob = await make_pal(), await make_pal()
    a, b = await ann.page(), await bob.page()
    await follow(a, bob.username)
    await follow(b, ann.username)
    async with httpx.AsyncClient(base_url=fr_server.http, timeout=T, cookies={COOKIE: bob.session}) as http:
        r = await http.post("/api/account/delete", json={"confirm": bob.username, "password": PASSWORD})
        assert r.status_code == 200, r.text
    await fr_clock.advance(2)  # past the list a page asking again at once gets (list_every_ms)
    assert (await listing(a))["following"] == []
    rds = aioredis.Redis.from_url(fr_server.settings.redis_url or "", socket_timeout=5)
    try:
        assert not await rds.exists(*keys.personal(bob.player))
        assert not await rds.sismember(keys.following(ann.player), bob.player)
    finally:
        await rds.aclose()


async def test_a_page_opened_after_the_challenge_shows_it_once(make_pal: MakePal) -> None:
    ann, bob = await make_pal(), await make_pal()
    a, b = await ann.page(), await bob.page()
    await follow(a, bob.username)
    sent = await ask(a, {"t": "friend_challenge", "name": bob.username}, "challenge")
    cid = sent["challenge"]
    late = await bob.page(enrol=False)
    await late.send({"t": "friends"})
    notice = await late.expect("challenge", T, where=lambda m: m.get("challenge") == cid)
    assert "rid" not in notice and notice["from"]["username"] == ann.username
    again = await ask(late, {"t": "friends"}, "friends")  # a second ask sends it no more
    assert again["t"] == "friends"
    await late.ping()
    assert len([f for f in late.frames if f.get("t") == "challenge"]) == 1
    later_a = await ann.page()  # the challenger's own new page shows its waiting challenge too
    await later_a.expect("challenge", T, where=lambda m: m.get("challenge") == cid)
    answer = await ask(b, {"t": "challenge_answer", "challenge": cid, "accept": False}, "challenge_end")
    assert answer["outcome"] == "declined"
    fresh = await bob.page()
    await fresh.ping()
    assert not [f for f in fresh.frames if f.get("t") == "challenge"]  # answered: no longer waiting
