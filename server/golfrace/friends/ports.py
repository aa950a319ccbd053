"""What friends needs of accounts and of races, as two small typed interfaces, and their adapters over the
running services (what the accounts and races extensions ``provide`` on the context). Nothing else of
either package is used here, so a change inside them reaches friends only through these few calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from golfrace.accounts.names import fold
from golfrace.store.public_names import public_name

if TYPE_CHECKING:
    from golfrace.accounts.service import Accounts
    from golfrace.races.followers import RaceWire


@dataclass(frozen=True, slots=True)
class Person:
    """An account as friends shows it: never its player id on the wire."""

    player: str
    username: str
    name: str
    """The public name (display name, else the username), as the public boards show it."""

    def public(self) -> dict[str, str]:
        return {"username": self.username, "name": self.name}


@dataclass(frozen=True, slots=True)
class RaceSeen:
    """A race a player is in, as their friends may know of it (no code, no card: see ``docs/friends.md``)."""

    race: str
    phase: str
    """``lobby``, ``countdown``, ``running``."""
    rules: str
    ranked: bool
    daily: bool
    racers: int


class AccountDirectory(Protocol):
    async def find(self, username: str) -> Person | None:
        """The account of ``username`` (any case), or None."""

    async def person(self, player: str) -> Person | None:
        """The account of ``player``, or None (a guest, a deleted account)."""


class RaceDirectory(Protocol):
    def joined(self, connection: Any) -> Sequence[str]:
        """The races this local connection joined as a racer and did not leave."""

    async def seen(self, race_id: str, player: str) -> RaceSeen | None:
        """``race_id`` now, if ``player`` races in it and it is not over."""

    async def seat_holder(self, race_id: str, seat: int) -> str | None:
        """The player of ``seat`` of the race ``race_id`` once it is over (its results are public), else
        None."""

    async def start_race(self, host: Person, guest: Person, rules: str) -> str:
        """A new ranked two-seat race on a random deal of ``rules`` with both seated, its countdown begun."""

    def today(self) -> str:
        """Today's daily (yyyy-mm-dd, UTC, the races' clock)."""

    async def daily_entry(self, day: str, player: str) -> dict[str, Any] | None:
        """``player``'s entry on the public daily board of ``day`` (``rank`` and the entry), or None."""


class AccountsPort:
    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts

    async def find(self, username: str) -> Person | None:
        folded = fold(username[:64])
        if not 0 < len(folded) <= 20:
            return None
        player = await self.accounts.store.owner_of(folded)
        return None if player is None else await self.person(player)

    async def person(self, player: str) -> Person | None:
        account = await self.accounts.store.load(player)
        if account is None:
            return None
        name = await public_name(self.accounts.ctx.redis, player)
        return Person(player, account.username, name or account.username)


class RacesPort:
    def __init__(self, wire: RaceWire) -> None:
        self.wire = wire

    def joined(self, connection: Any) -> Sequence[str]:
        return sorted(self.wire.joined.get(connection, ("", set()))[1])

    async def seen(self, race_id: str, player: str) -> RaceSeen | None:
        service = self.wire.service
        race = await service.storage.read_race(race_id)
        if race is None or race.ended_at is not None or race.racer(player) is None:
            return None
        phase = race.phase(service.clock())
        if phase.value == "finished" or (race.deadline is not None and service.clock() >= race.deadline):
            return None
        racer = race.racer(player)
        if racer is not None and racer.done and race.starts_at is not None:
            return None  # their own game is over: they are no longer racing
        return RaceSeen(
            race.id, phase.value, race.code.rules.value, race.ranked, race.daily is not None, len(race.racers)
        )

    async def seat_holder(self, race_id: str, seat: int) -> str | None:
        race = await self.wire.service.storage.read_race(race_id)
        if race is None or race.ended_at is None:
            return None
        racer = race.racer_at(seat)
        return None if racer is None else racer.player

    async def start_race(self, host: Person, guest: Person, rules: str) -> str:
        from golfrace.engine import Rules, Variants
        from golfrace.races.race import RaceOptions

        service = self.wire.service
        race = await service.create(
            host.player, host.name, None, Rules(rules), Variants(), RaceOptions(seats=2)
        )
        await service.join(race.id, guest.player, guest.name)
        await service.start(race.id, host.player)
        return race.id

    def today(self) -> str:
        from golfrace.races.daily import day_of

        return day_of(self.wire.service.clock()).isoformat()

    async def daily_entry(self, day: str, player: str) -> dict[str, Any] | None:
        from golfrace.races.leaderboard import daily_board

        return await self.wire.service.boards.rank_of(daily_board(day), player)
