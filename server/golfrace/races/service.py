"""Races on one instance: read a race and its seats, apply a pure transition, write it with the one-slot
compare-and-set of ``storage.py``, and complete the end of any race it touches — nothing else.

Events on ``race:{<id>}`` (internal: they carry every audience's view; ``followers.py`` picks what each
connection may see):

- ``{"k": "race", "rev", "view": the watchers' view, "boards": [...] (revealed), "check_at", "ended_at"}``
  after any change of the race (published by the write itself; ``rev``: the record's); a racer's view is
  the watchers' with their seat (``race_views.as_racer``), so the event carries one view, not five;
- ``{"k": "move", "seat", "player", "v", "progress", "diff"?, "board"?}`` after a seat's move (published by
  the seat's commit, ``seats.py``; the watchers' ``diff`` and ``board`` once the race has been watched);
- ``{"k": "watchers", "n"}`` when the watcher count changes (``presence.py``).

The end of a race is idempotent and completed by whoever next touches it (``ending.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from golfrace.live.services import wall_clock
from golfrace.live.tasks import Tasks
from golfrace.settings.accounts import AccountSettings
from golfrace.settings.races import RaceSettings
from golfrace.store.games import RedisClient, Store
from golfrace.store.history import History
from golfrace.store.keys import seat_id
from golfrace.wire.ids import new_race_id
from golfrace.wire.protocol import pack

from ..engine import GameCode, Rules, Variants, random_ranked_code
from . import race_views, solving
from .daily import DailyBook
from .ending import Ending
from .errors import RaceError
from .finishing import FINISH_GRACE_MS, Finishing
from .knowledge import KnowledgeReviews
from .leaderboard import Leaderboards
from .live import LiveRaces
from .lobby import Lobbies
from .presence import Presence
from .race import Race, RaceOptions
from .racer import Seat, Seats
from .replay import Checks, GameRecord, RecordStore
from .storage import Loaded, RaceStore
from .timers import SETTLE_RETRY_S, Timers, retrying

log = logging.getLogger("golfrace.races")
Clock = Callable[[], int]


@dataclass(frozen=True, slots=True)
class Change:
    before: Race
    after: Race
    seats: Seats
    watchers: int | None = None  # the watcher count the write's event told (None: no event)


class RaceService:
    def __init__(
        self,
        redis: RedisClient,
        store: Store,
        settings: RaceSettings,
        daily: DailyBook,
        clock: Clock = wall_clock,
        accounts: AccountSettings | None = None,
    ) -> None:
        self.redis = redis
        self.accounts = accounts or AccountSettings()
        """For the players' histories (``accounts/history.py``)."""
        self.store = store
        self.settings = settings
        self.clock = clock
        self.daily = daily
        self.storage = RaceStore(redis, store, settings.race_ttl_s)
        self.boards = Leaderboards(
            redis, settings.board_ttl_s, settings.bests_max, Checks.of(settings), settings.review_top
        )
        self.records = RecordStore(redis, settings.record_ttl_s, store.batch)
        self.live = LiveRaces(redis, settings.live_index_max, settings.race_ttl_s, store.batch)
        self.finishing = Finishing(redis, settings.race_ttl_s, store.batch)
        self.history = History(redis, self.accounts, store.batch)
        self.tasks = Tasks()
        self.instance = secrets.token_hex(6)
        self.presence = Presence(redis, settings, clock, self.instance, store.batch)
        self.timers = Timers(clock, self._settle, self.tasks)
        self._peeked: dict[str, tuple[float, Race]] = {}
        self._following: dict[str, asyncio.Task[None]] = {}
        # race id → this instance's ``touch_soon`` of it, while it runs
        self._again: set[str] = set()
        # races asked to ``touch_soon`` again while it runs
        self.lobbies = Lobbies(self)
        self.end_hooks: list[Callable[[Race, Seats], Awaitable[None]]] = []
        """Extensions' steps of a race's aftermath (the pool's ratings), each safe to run twice."""
        self.review_hooks: list[Callable[[GameRecord, str], Awaitable[None]]] = []
        """Extensions' steps (safe twice) when fair play's review says ``too_fast``, ``knowledge`` or
        ``clear`` of a ranked result (the pool's flags and held ratings)."""
        self.reviews = KnowledgeReviews(self)
        self.ending = Ending(self)

    # --- reading --------------------------------------------------------------------------------------
    async def load(self, race_id: str) -> Race | None:
        found = await self.load_with_seats(race_id)
        return None if found is None else found[0]

    async def load_with_seats(self, race_id: str) -> tuple[Race, Seats] | None:
        """The race and its seats as they are now: settled first (the seats' ends, the time limit, idle
        racers) and with an unfinished end completed."""
        loaded = await self.storage.read(race_id, self._seats_hint(race_id))
        if loaded is None:
            return None
        race, seats = loaded.race, loaded.seats
        if race.settle(self.clock(), seats) != race or (race.ended_at is not None and not race.finalized):
            change = await self.update(race_id, lambda r: r)  # settles, and completes the end
            race, seats = change.after, change.seats
        self._remember(race)
        self.timers.arm(race.id, race.next_check(seats), race.ended_at)
        return race, seats

    async def peek(self, race_id: str) -> Race | None:
        """The race as read lately here (``settings.peek_s``), without its seats: for a seat's move."""
        seen = self._peeked.get(race_id)
        if seen is not None and time.monotonic() - seen[0] < self.settings.peek_s:
            return seen[1]
        race = await self.storage.read_race(race_id)  # the record only: a peek needs no seat
        return None if race is None else self._remember(race)

    def _seats_hint(self, race_id: str) -> list[int] | None:
        """The seats of the race as seen here lately (read with its record; a wrong guess costs a read)."""
        seen = self._peeked.get(race_id)
        if seen is None or seen[1].starts_at is None:
            return None
        return [r.seat for r in seen[1].racers]

    def forget(self, race_id: str, rev: Any = None) -> None:
        """A race event arrived (of the record's revision ``rev``): unless the race peeked here is as new
        (the event of a write made here), the next seat move reads the race again."""
        seen = self._peeked.get(race_id)
        if seen is not None and (not isinstance(rev, int) or rev > seen[1].rev):
            del self._peeked[race_id]

    def stale(self, race_id: str) -> None:
        """A seat's commit found another revision of the race in its gate: the peek is read again."""
        self._peeked.pop(race_id, None)

    def _remember(self, race: Race) -> Race:
        self._peeked[race.id] = (time.monotonic(), race)
        if len(self._peeked) > 10_000:  # bounded: the oldest half goes
            for key in sorted(self._peeked, key=lambda k: self._peeked[k][0])[:5_000]:
                del self._peeked[key]
        return race

    # --- writing --------------------------------------------------------------------------------------
    async def update(self, race_id: str, change: Callable[[Race], Race]) -> Change:
        """Apply ``change`` (to the race settled from its seats) with a compare-and-set on the race and its
        seats, publishing the event with the write; then complete the end if the race has ended."""
        hint = self._seats_hint(race_id)
        for _ in range(self.settings.cas_retries):
            loaded = await self.storage.read(race_id, hint)
            if loaded is None:
                raise RaceError("race_not_found", f"no race {race_id!r}", race=race_id)
            hint = [n for n in loaded.versions]
            result = await self._try(loaded, change)
            if result is not None:
                break
        else:
            raise RaceError("busy", "too much contention on this race; retry", race=race_id)
        after, seats = result.after, result.seats
        self._remember(after)
        if after.ended_at is not None and not after.finalized:
            after = await self.ending.finish(after, seats)
            result = Change(result.before, after, seats, result.watchers)
        self.timers.arm(after.id, after.next_check(seats), after.ended_at)
        return result

    async def _try(self, loaded: Loaded, change: Callable[[Race], Race]) -> Change | None:
        before, now = loaded.race, self.clock()
        after = change(before.settle(now, loaded.seats))
        if after == before:
            return Change(before, before, loaded.seats)
        # only the aftermath's mark, the first watch's (the seats' commits learn it from the race gate's
        # revision), or the par of a race still on (shown after the end, and its timing would tell how soon
        # the solver saw through the deal): no event, nothing anyone sees changes
        quiet = replace(before, finalized=after.finalized, watched=after.watched) == after or (
            after.ended_at is None and replace(before, par=after.par) == after
        )
        after = replace(after, rev=before.rev + 1)  # the gate's copy tells the seats' commits
        seats: dict[int, Seat] = dict(loaded.seats)
        new_seats: dict[int, dict[str, Any]] = {}
        if before.starts_at is None and after.starts_at is not None:  # the start: every seat's game
            fresh, new_seats = self.seat_games(after)
            seats.update(fresh)
        if after.ended_at is not None and before.ended_at is None:
            # durable before the end is: a process killed after the write still leaves the end to finish
            await self.finishing.note(after.id, now + FINISH_GRACE_MS)
        watchers = None if quiet else await self.presence.watchers(after.id)
        event = b"" if watchers is None else pack(self._event(before, after, now, seats, watchers))
        if after.starts_at is None and not after.racers:  # fair play: an empty lobby goes
            outcome = await self.storage.delete(loaded, event)
        else:
            outcome = await self.storage.write(loaded, after, event, new_seats)
        if outcome == "gone":
            raise RaceError("race_not_found", f"no race {after.id!r}", race=after.id)
        return Change(before, after, seats, watchers) if outcome == "ok" else None

    def _event(self, before: Race, race: Race, now: int, seats: Seats, watchers: int) -> dict[str, Any]:
        return {
            "k": "race",
            "rev": race.rev,  # an instance whose peek is this revision keeps it
            "check_at": race.next_check(seats),  # for the timers of the other instances serving it
            "ended_at": race.ended_at,
            "view": race_views.race_view(race, None, now, watchers, seats),  # each racer's: ``as_racer``
            "boards": race_views.revealed(before, race, seats, now),  # only watchers get them
        }

    def seat_games(self, race: Race) -> tuple[dict[int, Seat], dict[int, dict[str, Any]]]:
        """Every racer's new seat game (an ordinary stored game, marked with its race) and its hash fields,
        for the write that starts the race."""
        seats: dict[int, Seat] = {}
        fields: dict[int, dict[str, Any]] = {}
        for r in race.racers:
            stored, fields[r.seat] = self.store.new_game(
                seat_id(race.id, r.seat),
                r.player,
                race.code,
                hidden=not race.typed,
                meta={"race": race.id, "seat": r.seat, "undo": race.options.undo},
                draws_final=race.ranked,  # fair play: a draw is final in ranked play
            )
            seats[r.seat] = Seat(stored.game)
        return seats, fields

    async def insert(self, race: Race, new_seats: dict[int, dict[str, Any]] | None = None) -> None:
        outcome = await self.storage.write(None, race, b"", new_seats)
        if outcome != "ok":
            raise RaceError("race_started", "a race with this id exists", race=race.id)
        self._remember(race)

    async def touch(self, race_id: str) -> None:
        """A seat's game ended (or may have): the race follows its seats now."""
        await self.update(race_id, lambda r: r)

    def touch_soon(self, race_id: str) -> asyncio.Task[None]:
        """``touch`` in a task of its own (done once the race has followed): one at a time per race here, once
        more if asked meanwhile, so concurrent seat ends do not contend for the race's compare-and-set.
        Redis away: retried; this instance dead: done by the next touch or by ``seat_ended`` elsewhere."""
        running = self._following.get(race_id)
        if running is not None and not running.done():
            self._again.add(race_id)
            return running

        async def attempt() -> None:
            try:
                await self.touch(race_id)
            except RaceError as exc:
                if exc.code != "busy":
                    raise  # gone: nothing to follow
                self._again.add(race_id)  # contention on the race: once more

        async def run() -> None:
            try:
                while True:
                    self._again.discard(race_id)
                    await retrying(attempt, SETTLE_RETRY_S, (RaceError,), f"following race {race_id}")
                    if race_id not in self._again:
                        return
            finally:
                if self._following.get(race_id) is task:
                    del self._following[race_id]

        task = self.tasks.spawn(run())
        self._following[race_id] = task
        return task

    async def _settle(self, race_id: str) -> None:
        await self.update(race_id, lambda r: r)  # update settles it first, and arms the next timer

    # --- lobby and race -------------------------------------------------------------------------------
    async def create(
        self,
        player: str,
        name: str,
        code: GameCode | None,
        rules: Rules,
        variants: Variants,
        options: RaceOptions,
        ranked: bool = True,
        net: str = "",
    ) -> Race:
        """A lobby hosted by ``player``: a typed ``code`` makes a casual race; a random deal is ranked when
        ``ranked`` (the caller sends true only for an account: a ranked race seats accounts only), else a
        casual random race (guests race there)."""
        typed = code is not None
        race = Race.create(
            new_race_id(),
            code or random_ranked_code(rules, variants),
            host=player,
            name=name,
            now=self.clock(),
            options=options,
            typed=typed,
            ranked=ranked and not typed,
            settings=self.settings,
            net=net,
        )
        await self.insert(race)
        await self.live.add(race)  # a lobby about to start is listed too
        return race

    async def join(
        self,
        race_id: str,
        player: str,
        name: str | None,
        new_name: str = "",
        *,
        account: bool = True,
        net: str = "",
    ) -> Change:
        """Seat ``player`` (named ``name``, or ``new_name`` when not seated yet); a seated racer with
        ``name`` None stays as they are. ``account``: whether the caller is a signed-in account (a ranked
        race seats accounts only); ``net``: its client network (``Race.join``)."""

        def change(r: Race) -> Race:
            seated = r.racer(player)
            if seated is not None and name is None:
                return r
            chosen = name if name is not None else new_name
            return r.join(player, chosen, self.clock(), self.settings, account=account, net=net)

        return await self.update(race_id, change)

    async def leave(self, race_id: str, player: str) -> Race:
        """Leave a lobby; leaving a quick race (``pool``) after its start is a resignation."""
        now = self.clock()

        def change(r: Race) -> Race:
            return r.resign(player, now) if r.pool and r.starts_at is not None else r.leave(player)

        return (await self.update(race_id, change)).after

    async def start(self, race_id: str, player: str) -> Race:
        now = self.clock()  # before the write's own reading: its event sees the race as started by now
        race = (await self.update(race_id, lambda r: r.start(player, now, self.settings))).after
        if self.settings.solver_budget_s > 0:  # 0: no par search (no solver thread per race)
            self.tasks.spawn(self.compute_par(race))
        await self.live.add(race)
        return race

    async def resign(self, race_id: str, player: str) -> Race:
        now = self.clock()
        return (await self.update(race_id, lambda r: r.resign(player, now))).after

    async def rematch(self, race_id: str, player: str, *, account: bool = True, net: str = "") -> Race:
        candidate = new_race_id()
        old = (await self.update(race_id, lambda r: r.accept_rematch(player, candidate))).after
        assert old.rematch is not None
        if old.rematch == candidate:
            code = old.code if old.typed else random_ranked_code(old.code.rules, old.code.variants)
            with contextlib.suppress(RaceError):
                lobby = old.next_race(code, player, self.clock(), self.settings)
                await self.insert(lobby)
                await self.live.add(lobby)
        racer = old.racer(player)
        name = racer.name if racer else ""
        for _ in range(50):  # the first accepter may still be writing the next race
            try:
                return (await self.join(old.rematch, player, name, account=account, net=net)).after
            except RaceError as exc:
                if exc.code != "race_not_found":
                    raise
                await asyncio.sleep(0.02)
        raise RaceError("race_not_found", "the rematch race did not appear", race=old.rematch)

    def seat_ended(self, race_id: str, seat: int) -> None:
        """A seat's game ended (its move event came here): unless followed here, checked after a few sweeps
        (``ending.later``), should the instance that stored the move (it follows the race) die first."""
        seen = self._peeked.get(race_id)
        racer = seen[1].racer_at(seat) if seen is not None else None
        if race_id in self._following or (racer is not None and racer.done):
            return  # followed here already
        self.ending.later(race_id)

    async def compute_par(self, race: Race) -> None:
        par = await asyncio.to_thread(solving.par, race.code, self.settings.solver_budget_s)
        if par is not None:
            with contextlib.suppress(RaceError):
                await self.update(race.id, lambda r: r.with_par(par))

    async def close(self) -> None:
        await self.reviews.close()
        await self.tasks.close()
