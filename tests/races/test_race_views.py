"""``races/race_views.py``: what each audience sees of a race, as pure functions of the race and its seats."""

from __future__ import annotations

from golfrace.engine import Draw, Game, GameCode, Rules
from golfrace.races import race_views
from golfrace.races.race import Race
from golfrace.races.racer import Seat

CODE = GameCode(Rules.EASY, 7)
T0 = 1_000_000


def lobby() -> Race:
    return Race.create("rviews", CODE, host="pann", name="Ann", now=T0).join("pbob", "Bob", T0)


def running() -> tuple[Race, dict[int, Seat]]:
    race = lobby().start("pann", T0)
    assert race.starts_at is not None
    ann, bob = race.racers
    game = Game.new(CODE)
    return race, {ann.seat: Seat(game.apply(Draw()).apply(Draw()), 2), bob.seat: Seat(game.apply(Draw()), 1)}


def test_a_random_code_is_nobody_s_until_the_race_ends() -> None:
    race, seats = running()
    now = race.starts_at + 5_000  # type: ignore[operator]
    for viewer in ("pann", "pbob", None):
        assert race_views.race_view(race, viewer, now, 0, seats)["code"] is None
    ended = race.resign("pann", now).resign("pbob", now)  # nobody left racing: over
    assert ended.ended_at is not None
    assert race_views.race_view(ended, None, now, 0, seats)["code"] is not None


def test_a_racer_sees_their_seat_a_watcher_none() -> None:
    race, seats = running()
    now = race.starts_at + 1  # type: ignore[operator]
    ann = race_views.race_view(race, "pann", now, 3, seats)
    watcher = race_views.race_view(race, None, now, 3, seats)
    assert ann["you"] == {"seat": race.racers[0].seat, "game": race.game_id(race.racers[0])}
    assert watcher["you"] is None and watcher["watchers"] == 3 and watcher["phase"] == "running"
    assert [r["moves"] for r in ann["racers"]] == [2, 1]  # progress: counts for everyone
    assert ann["results"] is None


def test_progress_names_no_card() -> None:
    race, seats = running()
    line = race_views.progress(race, race.racers[0], seats, race.starts_at or 0)
    assert set(line) >= {"seat", "removed", "score", "moves", "stock_count", "status"}
    assert "columns" not in line and "discard" not in line


def test_a_board_ahead_in_the_stock_is_held_back_from_watchers() -> None:
    race, seats = running()
    now = race.starts_at or 0
    assert race.shown_draws(seats, now) == 1  # Bob has drawn one: that many are shown
    ahead, behind = race_views.boards(race, seats, now)
    assert ahead["hidden"] is True and ahead["discard"] is None  # Ann's second draw would tell a card
    assert ahead["columns"] == race_views.columns(seats[race.racers[0].seat].game, 1)
    assert behind["hidden"] is False and behind["discard"] is not None
    diff = {"drawn": "AS", "discard": "AS", "removed": [1], "moves": 3}
    held = race_views.watcher_diff(race, diff, seats[race.racers[0].seat].game, 1)
    assert held == {"drawn": None, "discard": None, "moves": 3}
    assert race_views.watcher_diff(race, diff, seats[race.racers[1].seat].game, 1) is diff


def test_every_audience_has_its_view() -> None:
    race, seats = running()
    watchers = race_views.race_view(race, None, race.starts_at or 0, 0, seats)
    bob = race_views.as_racer(watchers, "pbob")
    assert bob is not None and bob["you"]["seat"] == race.racers[1].seat and watchers["you"] is None
    assert race_views.as_racer(watchers, "pzed") is None  # not racing in it: no racer's view


VIEW_KEYS = [
    "race", "phase", "code", "rules", "variants", "typed", "ranked", "daily", "guest_deal", "pool", "options",
    "host", "racers", "starts_at", "deadline", "ended_at", "now", "you", "watchers", "results", "par",
    "rematch", "previous",
]  # fmt: skip


def test_each_racer_s_view_is_made_from_the_watchers_view_alone() -> None:
    """A race event carries the watchers' view only: each racer's ``race`` is ``as_racer`` of it, exactly
    ``race_view`` for that racer (fair play shows a code to every viewer or to none), before the start,
    while running and once over."""
    race, seats = running()
    now = (race.starts_at or 0) + 5_000
    ended = race.resign("pann", now).resign("pbob", now)
    typed = Race.create("rtyped", CODE, host="pann", name="Ann", now=T0, typed=True).join("pbob", "Bob", T0)
    for r, its_seats in ((lobby(), {}), (race, seats), (ended, seats), (typed, {})):
        watcher = race_views.race_view(r, None, now, 2, its_seats)
        assert list(watcher) == VIEW_KEYS and watcher["you"] is None
        for racer in r.racers:
            mine = race_views.race_view(r, racer.player, now, 2, its_seats)
            assert list(mine) == VIEW_KEYS and mine["you"] == {"seat": racer.seat, "game": r.game_id(racer)}
            assert race_views.as_racer(watcher, racer.player) == mine
        assert race_views.as_racer(watcher, "pzed") is None
    assert race_views.race_view(ended, "pann", now, 2, seats)["code"] is not None  # public once it is over
    assert race_views.race_view(typed, None, now, 2, {})["code"] is not None  # a typed code: no secret
