"""Races in Redis: load, apply a pure transition, store with a compare-and-set, publish — nothing else.

Keys: ``race:{<id>}`` (the race as JSON, TTL ``race_ttl_s``), ``race:{<id>}:wh`` (the live watcher count: a
hash with one field per server instance, ``"<watchers>:<stamped ms>"``; a share not re-stamped for
``watcher_stale_s`` is an instance that is gone and no longer counts), ``race:{<id>}:here`` (the racers with a
connection following the race: field ``"<player>|<instance>"``, value the stamp in ms, re-stamped like the
watcher shares; a lobby racer with no fresh stamp ``lobby_grace_s`` after their last connection left is
taken out of the lobby).
Channel ``race:{<id>}``: events published inside the same transaction as the write, so every instance sees
them in commit order. Events are internal (they carry every audience's view); ``wire`` picks what each
connection may see:

- ``{"k": "race", "views": {player: view, "": watcher view}, "boards": [...]}`` after any change but a move;
- ``{"k": "move", "seat", "player", "v", "diff", "progress", "board", "views"?}`` after a move;
- ``{"k": "watchers", "n"}`` when the watcher count changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import date
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError, WatchError

from .. import metrics
from ..accounts import ranked as accounts_ranked
from ..accounts.settings import AccountSettings
from ..engine import Action, GameCode, Rules, Variants, random_ranked_code
from ..errors import cause
from ..protocol import pack
from ..store import publish_command
from . import solving, views
from .daily import DailyBook, day_of, next_day_ms, share_text
from .errors import RaceError
from .leaderboard import Leaderboards
from .live import LiveRaces
from .race import Race, RaceOptions
from .replay import Checks, GameRecord, RecordStore, review_reason, verify
from .settings import RaceSettings
from .stats import History, Played

log = logging.getLogger("golfrace.races")
ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
Clock = Callable[[], int]


SETTLE_RETRY_S = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
"""Waits between attempts to settle a race (time limit, idle racers) while Redis is unreachable."""


async def retrying(
    attempt: Callable[[], Awaitable[None]],
    waits: Sequence[float],
    settled: tuple[type[BaseException], ...],
    what: str,
) -> None:
    """Await ``attempt`` until it returns or raises one of ``settled`` (nothing left to do); any other failure
    (Redis away) is logged and the next attempt comes after the next of ``waits``. One attempt more than there
    are waits: the last comes after the last wait, and if it fails too that is logged as giving up."""
    for wait in (*waits, None):
        try:
            await attempt()
            return
        except settled:
            return
        except Exception as exc:
            # Redis away (a restart, a failover) is routine: one line with its cause; anything else is a bug
            routine = isinstance(exc, RedisError | OSError)
            if wait is None:
                log.error(
                    "%s failed; giving up after %d attempts: %s", what, len(waits) + 1, cause(exc),
                    exc_info=not routine,
                )  # fmt: skip
                return
            log.warning("%s failed (%s); retrying in %g s", what, cause(exc), wait, exc_info=not routine)
            await asyncio.sleep(wait)


def wall_clock() -> int:
    return int(time.time() * 1000)


def new_race_id() -> str:
    return "r" + "".join(secrets.choice(ID_ALPHABET) for _ in range(11))


def race_key(race_id: str) -> str:
    return f"race:{{{race_id}}}"


def race_channel(race_id: str) -> str:
    return f"race:{{{race_id}}}"


def watchers_key(race_id: str) -> str:
    """A hash of per-instance shares (``:wh``: the old ``:w`` was a plain counter, a different Redis type)."""
    return race_key(race_id) + ":wh"


def presence_key(race_id: str) -> str:
    return race_key(race_id) + ":here"


def present(shares: Mapping[Any, bytes | str], player: str, now: int, stale_ms: int) -> bool:
    """Whether ``player`` has a presence stamp (field ``"<player>|<instance>"``) within ``stale_ms``."""
    for field, stamp in shares.items():
        who = (field.decode() if isinstance(field, bytes) else str(field)).rpartition("|")[0]
        try:
            fresh = now - int(stamp) <= stale_ms
        except ValueError:
            continue
        if who == player and fresh:
            return True
    return False


def live_watchers(shares: Mapping[Any, bytes | str], now: int, stale_ms: int) -> int:
    """The watcher total from the instances' shares (``"<n>:<stamped ms>"``) stamped within ``stale_ms``."""
    total = 0
    for raw in shares.values():
        try:
            n, _, stamped = (raw.decode() if isinstance(raw, bytes) else raw).partition(":")
            if now - int(stamped) <= stale_ms:
                total += max(0, int(n))
        except ValueError:
            continue
    return total


def split_game_id(game_id: str) -> tuple[str, int] | None:
    race_id, sep, seat = game_id.rpartition("-")
    if not sep or not race_id.startswith("r") or not (seat.isascii() and seat.isdigit()):
        return None
    return race_id, int(seat)


class RaceService:
    def __init__(
        self,
        redis: aioredis.Redis,
        settings: RaceSettings,
        daily: DailyBook,
        clock: Clock = wall_clock,
        accounts: AccountSettings | None = None,
    ) -> None:
        self.redis = redis
        self.accounts = accounts or AccountSettings()
        """For the players' histories (``accounts.ranked``)."""
        self.settings = settings
        self.clock = clock
        self.daily = daily
        self.boards = Leaderboards(redis, settings.board_ttl_s, settings.bests_max, Checks.of(settings))
        self.records = RecordStore(redis, settings.record_ttl_s)
        self.live = LiveRaces(redis, settings.live_index_max)
        self.history = History(redis, settings.stats_games_max, settings.stats_ttl_s)
        self._tasks: set[asyncio.Task[None]] = set()
        self.instance = secrets.token_hex(6)
        """This process's field in the watcher-count hashes."""
        self._local_watchers: dict[str, int] = {}
        """Race id → watchers connected to this instance."""
        self._shown_watchers: dict[str, int] = {}
        """Race id → the last watcher total this instance published or saw, for races followed here."""
        self._timers: dict[str, int] = {}
        """Race id → when this instance's timer for the race fires (``Race.next_check``: its time limit or an
        idle racer's forfeit). Every instance that loads, writes or follows a running race keeps one, so the
        race ends on time while any instance that serves it is alive (the one that started it may be gone)."""

    # --- storage ------------------------------------------------------------------------------------------
    async def load(self, race_id: str) -> Race | None:
        raw = await self.redis.get(race_key(race_id))
        if raw is None:
            return None
        race = Race.from_data(json.loads(raw))
        if race.settle(self.clock()) is not race:
            race, _ = await self.update(race_id, lambda r: r)  # update settles it first
        self.settle_later(race.id, race.next_check(), race.ended_at)
        return race

    async def watchers(self, race_id: str) -> int:
        return self._live(await self.redis.hgetall(watchers_key(race_id)))

    def _live(self, shares: Mapping[Any, bytes | str]) -> int:
        return live_watchers(shares, self.clock(), int(self.settings.watcher_stale_s * 1000))

    async def _insert(self, race: Race) -> None:
        ok = await self.redis.set(
            race_key(race.id), json.dumps(race.to_data()), ex=self.settings.race_ttl_s, nx=True
        )
        if not ok:
            raise RaceError("race_started", "a race with this id exists", race=race.id)

    async def update(
        self,
        race_id: str,
        change: Callable[[Race], Race],
        describe: Callable[[Race, Race, int], dict[str, Any]] | None = None,
    ) -> tuple[Race, Race]:
        """Apply ``change`` with a compare-and-set and publish the event in the same transaction. Returns
        (before, after); the race's end is then processed once, by the caller whose write ended it."""
        key = race_key(race_id)
        for _ in range(self.settings.cas_retries):
            async with self.redis.pipeline(transaction=True) as pipe:
                try:
                    await pipe.watch(key)
                    raw = await pipe.get(key)
                    if raw is None:
                        raise RaceError("race_not_found", f"no race {race_id!r}", race=race_id)
                    before = Race.from_data(json.loads(raw))
                    now = self.clock()
                    after = change(before.settle(now))
                    if after == before:
                        await pipe.unwatch()  # type: ignore[no-untyped-call]
                        return before, before
                    watchers = self._live(await pipe.hgetall(watchers_key(race_id)))
                    move = describe(before, after, now) if describe is not None else None
                    pipe.multi()  # type: ignore[no-untyped-call]
                    if after.starts_at is None and not after.racers:  # fair play: an empty lobby goes
                        pipe.delete(key, watchers_key(race_id), presence_key(race_id))
                    else:
                        pipe.set(key, json.dumps(after.to_data()), ex=self.settings.race_ttl_s)
                    event = pack(self._event(before, after, now, watchers, move))
                    # SPUBLISH on a Redis Cluster (store.publish_command): sharded, like the hub listens
                    pipe.execute_command(publish_command(self.redis), race_channel(race_id), event)
                    await pipe.execute()
                except WatchError:
                    continue
            if after.ended_at is not None and before.ended_at is None:
                await self._finish(after)
            self.settle_later(after.id, after.next_check(), after.ended_at)
            return before, after
        raise RaceError("busy", "too much contention on this race; retry", race=race_id)

    def _event(
        self, before: Race, after: Race, now: int, watchers: int, move: dict[str, Any] | None
    ) -> dict[str, Any]:
        event: dict[str, Any] = {"k": "move"} if move else {"k": "race"}
        # for the timers of the other instances serving this race
        event["check_at"], event["ended_at"] = after.next_check(), after.ended_at
        if move:
            event.update(move)
        changed_phase = (before.starts_at, before.ended_at, [r.status for r in before.racers]) != (
            after.starts_at,
            after.ended_at,
            [r.status for r in after.racers],
        )
        if not move or changed_phase or before.rematch != after.rematch or before.par != after.par:
            event["views"] = all_views(after, now, watchers)
            event["boards"] = [views.board(after, r, now) for r in after.racers]
        if changed_phase:
            event["states"] = {
                r.player: {
                    "game": after.game_id(r),
                    "seq": r.seq,
                    "v": len(r.log),
                    "state": views.game_state(after, r, r.player),
                }
                for r in after.racers
                if r.game is not None
            }
        return event

    # --- lobby --------------------------------------------------------------------------------------------
    async def create(
        self,
        player: str,
        name: str,
        code: GameCode | None,
        rules: Rules,
        variants: Variants,
        options: RaceOptions,
    ) -> Race:
        typed = code is not None
        race = Race.create(
            new_race_id(),
            code or random_ranked_code(rules, variants),
            host=player,
            name=name,
            now=self.clock(),
            options=options,
            typed=typed,
            settings=self.settings,
        )
        await self._insert(race)
        return race

    async def join(self, race_id: str, player: str, name: str | None) -> Race:
        def change(r: Race) -> Race:
            seated = r.racer(player)
            if seated is not None and name is None:
                return r
            return r.join(player, name if name is not None else "", self.clock(), self.settings)

        return (await self.update(race_id, change))[1]

    async def leave(self, race_id: str, player: str) -> Race:
        return (await self.update(race_id, lambda r: r.leave(player)))[1]

    async def start(self, race_id: str, player: str) -> Race:
        race = (await self.update(race_id, lambda r: r.start(player, self.clock(), self.settings)))[1]
        self._spawn(self._compute_par(race))
        await self.live.add(race)
        return race

    async def resign(self, race_id: str, player: str) -> Race:
        return (await self.update(race_id, lambda r: r.resign(player, self.clock())))[1]

    # --- moves --------------------------------------------------------------------------------------------
    async def act(self, race_id: str, player: str, seq: int, action: Action) -> tuple[Race, int, bool]:
        """Apply a racer's move; returns (race, version, applied). A resent seq is not applied again."""

        def change(r: Race) -> Race:
            racer = r.racer(player)
            if racer is not None and seq <= racer.seq:
                return r
            return r.act(player, action, self.clock(), seq)

        def describe(before: Race, after: Race, now: int) -> dict[str, Any]:
            old, new = before.racer(player), after.racer(player)
            assert old is not None and new is not None and old.game is not None and new.game is not None
            change_ = views.diff(old.game, new.game, action, new.status, new.final_score)
            change_["can_undo"] = after.options.undo and not new.done and new.game.can_undo
            if new.done and not after.typed:
                change_["code"] = str(after.code)
            return {
                "seat": new.seat,
                "player": player,
                "v": len(new.log),
                "diff": change_,
                "progress": views.progress(after, new, now),
                "board": views.board(after, new, now),
            }

        before, race = await self.update(race_id, change, describe)
        racer = race.racer(player)
        assert racer is not None
        return race, len(racer.log), race is not before and race != before

    # --- rematch ------------------------------------------------------------------------------------------
    async def rematch(self, race_id: str, player: str) -> Race:
        candidate = new_race_id()
        _, old = await self.update(race_id, lambda r: r.accept_rematch(player, candidate))
        assert old.rematch is not None
        if old.rematch == candidate and not await self.redis.exists(race_key(candidate)):
            code = old.code if old.typed else random_ranked_code(old.code.rules, old.code.variants)
            with contextlib.suppress(RaceError):
                await self._insert(old.next_race(code, player, self.clock(), self.settings))
        racer = old.racer(player)
        name = racer.name if racer else ""
        for _ in range(50):  # the first accepter may still be writing the next race
            try:
                return await self.join(old.rematch, player, name)
            except RaceError as exc:
                if exc.code != "race_not_found":
                    raise
                await asyncio.sleep(0.02)
        raise RaceError("race_not_found", "the rematch race did not appear", race=old.rematch)

    # --- watchers -----------------------------------------------------------------------------------------
    async def add_watcher(self, race_id: str, delta: int) -> int:
        """A watcher connected to (``delta=1``) or left (``-1``) this instance; publishes the new total."""
        n = max(0, self._local_watchers.get(race_id, 0) + delta)
        if n:
            self._local_watchers[race_id] = n
        else:
            self._local_watchers.pop(race_id, None)
        async with self.redis.pipeline(transaction=True) as pipe:
            self._stamp(pipe, race_id, n)
            pipe.hgetall(watchers_key(race_id))
            total = self._live((await pipe.execute())[-1])
        await self._publish_watchers(race_id, total)
        return total

    def _stamp(self, pipe: Any, race_id: str, n: int) -> None:
        key = watchers_key(race_id)
        if n:
            pipe.hset(key, self.instance, f"{n}:{self.clock()}")
        else:
            pipe.hdel(key, self.instance)
        pipe.expire(key, self.settings.race_ttl_s)

    async def _publish_watchers(self, race_id: str, total: int) -> None:
        self._shown_watchers[race_id] = total
        await self.redis.publish(race_channel(race_id), pack({"k": "watchers", "n": total}))

    def saw_watchers(self, race_id: str, total: int) -> None:
        """A watcher total that reached this instance in an event."""
        self._shown_watchers[race_id] = total

    async def refresh_watchers(self, followed: set[str]) -> None:
        """Every ``watcher_refresh_s`` (the race wire's sweeper): re-stamp this instance's shares, and publish
        a total that changed without an event (an instance that died with watchers on it)."""
        races = sorted(followed | set(self._local_watchers))
        for gone in set(self._shown_watchers) - set(races):
            del self._shown_watchers[gone]
        if not races:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for race_id in races:
                if race_id in self._local_watchers:
                    self._stamp(pipe, race_id, self._local_watchers[race_id])
                pipe.hgetall(watchers_key(race_id))
            replies = await pipe.execute()
        totals = iter(r for r in replies if isinstance(r, dict))
        for race_id, total in zip(races, (self._live(t) for t in totals), strict=True):
            shown = self._shown_watchers.get(race_id)
            if shown is None:
                self._shown_watchers[race_id] = total
            elif shown != total:
                await self._publish_watchers(race_id, total)

    # --- racers' presence (lobbies) ---------------------------------------------------------------------
    async def here(self, race_id: str, player: str, present_now: bool) -> None:
        """A racer's first connection following the race on this instance came (True) or the last left."""
        key, field = presence_key(race_id), f"{player}|{self.instance}"
        async with self.redis.pipeline(transaction=False) as pipe:
            if present_now:
                pipe.hset(key, field, self.clock())
            else:
                pipe.hdel(key, field)
            pipe.expire(key, self.settings.race_ttl_s)
            await pipe.execute()

    async def restamp_here(self, racers: set[tuple[str, str]]) -> None:
        """Every ``watcher_refresh_s``: re-stamp the (race, player) pairs connected to this instance."""
        if not racers:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for race_id, player in sorted(racers):
                pipe.hset(presence_key(race_id), f"{player}|{self.instance}", self.clock())
            await pipe.execute()

    def leave_later(self, race_id: str, player: str) -> None:
        """The racer's last connection here stopped following the race: unless one (here or on another
        instance) follows it again within ``lobby_grace_s``, they leave it if it is still a lobby."""
        self._spawn(self._leave_if_gone(race_id, player))

    async def _leave_if_gone(self, race_id: str, player: str) -> None:
        await asyncio.sleep(self.settings.lobby_grace_s)
        try:
            shares = await self.redis.hgetall(presence_key(race_id))
            if present(shares, player, self.clock(), int(self.settings.watcher_stale_s * 1000)):
                return

            def gone(race: Race) -> Race:
                in_lobby = race.starts_at is None and race.ended_at is None
                return race.leave(player) if in_lobby and race.racer(player) is not None else race

            await self.update(race_id, gone)
        except RaceError:
            pass  # the race is gone
        except Exception:  # Redis away: the racer stays seated; the host may still start or leave
            log.warning("taking an absent racer out of lobby %s failed", race_id, exc_info=True)

    # --- daily --------------------------------------------------------------------------------------------
    async def daily_play(self, player: str, name: str) -> Race:
        """The player's ranked attempt of the day, claimed atomically (``DailyBook.claim_first``): every tab
        asking at once gets that one attempt while it runs; once it has ended, a practice attempt."""
        now = self.clock()
        day = day_of(now)
        code = await self.daily.code(day)
        race_id = new_race_id()
        game_id = f"{race_id}-1"

        def attempt(ranked: bool) -> Race:  # built (and its name checked) before the attempt is claimed
            return Race.create(
                race_id,
                code,
                host=player,
                name=name,
                now=now,
                options=RaceOptions(undo=True, time_limit_s=0, seats=1),
                ranked=ranked,
                daily=day.isoformat(),
                settings=self.settings,
            ).start(player, now, self.settings)

        ranked = attempt(True)
        for _ in range(3):  # a claimant that failed to store its attempt released the claim: claim again
            holder = await self.daily.claim_first(day, player, game_id)
            if holder == game_id:
                try:
                    await self._insert(ranked)
                except BaseException:
                    await self.daily.release(day, player, game_id)
                    raise
                self._spawn(self._compute_par(ranked))  # created started: start() does not run for it
                return ranked
            first = await self._claimed_attempt(day, player, holder)
            if first is not None and first.ended_at is None:
                return first
            if first is not None or await self.daily.first_game(day, player) == holder:
                break  # it has ended (or never got stored): practice
        practice = attempt(False)
        await self._insert(practice)
        self._spawn(self._compute_par(practice))
        return practice

    async def _claimed_attempt(self, day: date, player: str, game_id: str) -> Race | None:
        """The race of the claimed attempt ``game_id``, waiting up to ``daily_claim_wait_s`` for the tab that
        claimed it to store it; None if it does not appear (or its claim is released meanwhile)."""
        split = split_game_id(game_id)
        if split is None:
            return None
        deadline = time.monotonic() + self.settings.daily_claim_wait_s
        while True:
            race = await self.load(split[0])
            if race is not None:
                return race
            if time.monotonic() >= deadline or await self.daily.first_game(day, player) != game_id:
                return None
            await asyncio.sleep(0.01)

    async def daily_status(self, player: str) -> dict[str, Any]:
        now = self.clock()
        day = day_of(now)
        result = await self.daily.result(day, player)
        streak = await self.daily.streak(player)
        out: dict[str, Any] = {
            "date": day.isoformat(),
            "next_at": next_day_ms(now),
            "next_in": next_day_ms(now) - now,
            "played": await self.daily.first_game(day, player) is not None,
            "result": result,
            "streak": streak.current(day),
            "best_streak": streak.best,
            "code": None,
            "share": None,
        }
        if result is not None:
            out["code"] = str(await self.daily.code(day))
            out["share"] = share_text(
                day.isoformat(), result["score"], result["elapsed"], result["moves"], result["left"]
            )
        return out

    # --- the end of a race --------------------------------------------------------------------------------
    async def _finish(self, race: Race) -> None:
        """Once per race: keep every racer's record, post ranked results, close daily attempts."""
        for racer in race.racers:
            metrics.labelled(metrics.RACE_RESULTS, racer.status).inc()
        try:
            for racer in race.racers:
                if racer.game is None or racer.finished_at is None:
                    continue
                record = GameRecord.of(race, racer)
                await self.records.save(record)
                await self.boards.submit_record(record)
                await accounts_ranked.race_over(
                    self.redis, self.accounts, record, verify(record)
                )  # accounts: history
                if race.daily and race.ranked:
                    v = verify(record)
                    result = {
                        "score": v.score,
                        "elapsed": record.elapsed,
                        "moves": v.moves,
                        "left": list(v.game.heights),
                        "game": record.game,
                        "status": record.status,
                        "review": review_reason(record, self.boards.checks),  # fair play: too fast?
                    }
                    day = date.fromisoformat(race.daily)
                    await self.daily.finish(day, racer.player, result, ended_at=record.finished_at)
            # after what the racers' pages ask for next (results, boards, the daily's share text)
            for racer in race.racers:
                if racer.game is not None and racer.finished_at is not None:
                    record = GameRecord.of(race, racer)
                    await self.history.note(racer.player, Played.of_record(record, verify(record)))
            await self.live.remove(race.id)
        except Exception:
            log.exception("finishing race %s failed", race.id)

    async def _compute_par(self, race: Race) -> None:
        par = await asyncio.to_thread(solving.par, race.code, self.settings.solver_budget_s)
        if par is not None:
            with contextlib.suppress(RaceError):
                await self.update(race.id, lambda r: r.with_par(par))

    def settle_later(self, race_id: str, at: int | None, ended_at: int | None) -> None:
        """Make sure a timer on this instance settles the race at ``at`` (its next check). One timer per race:
        a later time waits for the earlier timer, which re-arms for the race's next check when it fires; the
        compare-and-set makes the timers of several instances change the race once."""
        if at is None or ended_at is not None:
            return
        current = self._timers.get(race_id)
        if current is not None and current <= at:
            return
        self._timers[race_id] = at
        self._spawn(self._settle_at(race_id, at))

    async def _settle_at(self, race_id: str, at: int) -> None:
        try:
            await asyncio.sleep(max(0.0, (at - self.clock()) / 1000) + 0.01)
        finally:
            if self._timers.get(race_id) == at:
                del self._timers[race_id]

        async def settle() -> None:
            _, after = await self.update(race_id, lambda r: r)  # update settles it first
            self.settle_later(after.id, after.next_check(), after.ended_at)

        # a RaceError: gone, or settled by someone else meanwhile (any load or move settles it as well)
        await retrying(settle, SETTLE_RETRY_S, (RaceError,), f"settling race {race_id}")

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task


def all_views(race: Race, now: int, watchers: int) -> dict[str, Any]:
    out = {r.player: views.race_view(race, r.player, now, watchers) for r in race.racers}
    out[""] = views.race_view(race, None, now, watchers)
    return out
