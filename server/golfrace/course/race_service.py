"""Course races on the server (``racing.py``): created, joined and started by their racers, each racer's
holes dealt by the server as sealed games of theirs, recorded from the stored games (a client's numbers
never count), and read by anyone with the link.

Every change is a pure transition written with the record's compare-and-set (``race_book.py``), tried again
on a conflict. A hole game dealt by a request that lost the write is removed at once, unseen. Whoever reads
a running race (a racer, a watcher) records the holes its racers have ended meanwhile, so a racer who closed
the tab after the ninth hole's last move still finishes, and the race ends with its last racer.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from functools import partial
from typing import Any

from golfrace.live.services import Context
from golfrace.store import lookalike
from golfrace.store.keys import game_key, player_key
from golfrace.wire.ids import ID_ALPHABET

from ..engine import Status
from ..engine.course import HOLES, random_course, strokes
from .errors import CourseRefusal
from .holes import Hole, hole_result
from .race_book import RaceBook
from .racing import CourseRace, Phase

SEALED_UNTIL = 2**53 - 1
"""A course race's hole is sealed for good: its code is shown by the race's results, not by the game."""
CAS_RETRIES = 16


def new_course_race_id() -> str:
    """``c`` and 11 characters of ``ID_ALPHABET`` (55 random bits): the race's link."""
    return "c" + "".join(secrets.choice(ID_ALPHABET) for _ in range(11))


class CourseRaces:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.book = RaceBook(ctx.redis, ctx.settings.races.race_ttl_s)

    def _name(self, raw: Any) -> str:
        if raw is None:
            return ""
        if not isinstance(raw, str):
            raise CourseRefusal("bad_option", "a name must be text", option="name")
        name = " ".join(raw.split())
        if len(name) > self.ctx.settings.races.name_max or (name and lookalike.reserved(name)):
            raise CourseRefusal("bad_option", "this name cannot be used", option="name")
        return name

    async def _load(self, race_id: str) -> CourseRace:
        race = await self.book.load(race_id)
        if race is None:
            raise CourseRefusal("race_not_found", "no such course race (or it expired)", race=race_id)
        return race

    async def _change(self, race_id: str, step: Callable[[CourseRace], CourseRace]) -> CourseRace:
        for _ in range(CAS_RETRIES):
            race = await self._load(race_id)
            after = step(race)
            if after == race:
                return race
            stored = await self.book.write(race, after)
            if stored is not None:
                return stored
        raise CourseRefusal("unavailable", "the race is too busy: try again", race=race_id)

    # --- the lobby --------------------------------------------------------------------------------------
    async def create(self, player: str, name: Any, seats: Any = None) -> dict[str, Any]:
        most = self.ctx.settings.races.max_racers
        if seats is None:
            seats = most
        if not isinstance(seats, int) or isinstance(seats, bool) or not 2 <= seats <= most:
            raise CourseRefusal("bad_option", f"seats must be 2–{most}", option="seats")
        race = CourseRace.create(
            new_course_race_id(), random_course(long=True), player, self._name(name), self.ctx.clock(), seats
        )
        stored = await self.book.write(None, race)
        if stored is None:  # an id drawn twice (55 random bits): never in practice
            raise CourseRefusal("unavailable", "try again")
        return stored.view(player, self.ctx.clock())

    async def join(self, race_id: str, player: str, name: Any) -> dict[str, Any]:
        clean = self._name(name)
        race = await self._change(race_id, lambda r: r.join(player, clean))
        return race.view(player, self.ctx.clock())

    async def start(self, race_id: str, player: str) -> dict[str, Any]:
        now = self.ctx.clock()
        race = await self._change(race_id, lambda r: r.start(player, now))
        return race.view(player, now)

    # --- the holes --------------------------------------------------------------------------------------
    async def read(self, race_id: str, player: str | None) -> dict[str, Any]:
        """The race as ``player`` (None: a watcher) sees it, once the holes its racers ended are recorded."""
        race = await self._load(race_id)
        if race.phase() is Phase.RUNNING:
            race = await self._settle(race)
        return race.view(player, self.ctx.clock())

    async def _settle(self, race: CourseRace) -> CourseRace:
        """Record every racer's hole that is over and not yet recorded."""
        for racer in race.racers:
            if racer.done or len(racer.games) <= racer.played:
                continue
            n = racer.played + 1
            try:
                result = await self._over(race, racer.player, n, racer.games[n - 1])
            except CourseRefusal:  # the hole's game expired: the racer's own ask says so (they may resign)
                continue
            if result is not None:
                hole, at = result
                step = partial(_record, player=racer.player, n=n, hole=hole, at=at)
                race = await self._change(race.id, step)
        return race

    async def _over(self, race: CourseRace, player: str, n: int, game_id: str) -> tuple[Hole, int] | None:
        """Hole ``n``'s result and the time of its last move, once its game is over (None before)."""
        store = self.ctx.store
        stored = await store.load(game_id)
        if stored is not None and stored.game.status is Status.PLAYING:
            return None
        log = await store.log(game_id) if stored is not None else []
        hole = hole_result(stored, game_id, player, race.course.hole(n), log, hinted=False)
        return hole, (stored.created if stored is not None else 0) + hole.elapsed

    async def next(self, race_id: str, player: str) -> dict[str, Any]:
        """The caller's hole to play: the one being played, or, once it is over, it recorded and the next
        one dealt; after the ninth, the race as it stands."""
        for _ in range(CAS_RETRIES):
            race = await self._load(race_id)
            racer = race.seated(player)
            if race.phase() is Phase.LOBBY:
                raise CourseRefusal("race_not_started", "wait for the host to start", race=race_id)
            if racer.done:
                return await self.read(race_id, player)
            n = racer.played + 1
            if len(racer.games) < n:
                await self._deal(race, player, n)
                continue
            result = await self._over(race, player, n, racer.games[n - 1])
            if result is None:
                return race.view(player, self.ctx.clock())
            hole, at = result
            await self._change(race_id, partial(_record, player=player, n=n, hole=hole, at=at))
        raise CourseRefusal("unavailable", "the race is too busy: try again", race=race_id)

    async def _deal(self, race: CourseRace, player: str, n: int) -> None:
        """Hole ``n`` dealt as a sealed game of ``player``, kept if the race's write takes it; a game dealt
        by a request that lost the write is removed at once, unseen."""
        meta = {"sealed": SEALED_UNTIL, "course": "race", "crace": race.id, "hole": n}
        stored = await self.ctx.store.create(player, race.course.hole(n), True, meta, draws_final=True)
        after = race.dealt(player, n, stored.id, self.ctx.clock())
        if await self.book.write(race, after) is None:
            await self.ctx.redis.delete(game_key(stored.id))
            await self.ctx.redis.zrem(player_key(player) + ":games", stored.id)
            self.ctx.store.forget(stored.id)

    async def resign(self, race_id: str, player: str) -> dict[str, Any]:
        """The caller stops: the hole being played counts the cards it left, the holes not played 35 each."""
        race = await self._load(race_id)
        racer = race.seated(player)
        stopped = None
        if not racer.done and len(racer.games) > racer.played:
            game_id = racer.games[racer.played]
            stored = await self.ctx.store.load(game_id)
            if stored is not None:
                stopped = Hole(game_id, strokes(stored.game, stopped=True), 0, stored.game.moves)
        now = self.ctx.clock()
        race = await self._change(race_id, lambda r: r.resign(player, now, stopped))
        return race.view(player, now)


def _record(race: CourseRace, player: str, n: int, hole: Hole, at: int) -> CourseRace:
    """``recorded`` when hole ``n`` is still the racer's next (another request may have recorded it)."""
    racer = race.racer(player)
    if racer is None or racer.done or racer.played >= n or n > HOLES:
        return race
    return race.recorded(player, n, hole, at)
