"""Racers who are gone from a lobby leave it: the last connection of a racer that closed (after
``lobby_grace_s``, unless one comes back on any instance), or a racer whose instance died with their
connections (seen by any instance following the lobby: its last presence stamp is
``Presence.silent_ms`` old, so it leaves within ``lobby_grace_s`` of the death).
A quick race (``Race.pool``) has no lobby: there a racer whose last connection closed resigns after the
same grace."""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING

from .errors import RaceError
from .race import Race
from .timers import pause

if TYPE_CHECKING:
    from .service import RaceService

log = logging.getLogger("golfrace.races")


class Lobbies:
    def __init__(self, service: RaceService) -> None:
        self.service = service

    def leave_later(self, race_id: str, player: str) -> None:
        """The racer's last connection here stopped following the race: unless one (here or on another
        instance) follows it again within ``lobby_grace_s``, they leave it if it is still a lobby."""
        self.service.tasks.spawn(self._leave_if_gone(race_id, player))

    async def _leave_if_gone(self, race_id: str, player: str) -> None:
        await pause(self.service.clock, self.service.settings.lobby_grace_s)
        try:
            if not await self.service.presence.is_present(race_id, player):
                await self._leave_lobby(race_id, player)
        except RaceError:
            pass  # the race is gone
        except Exception:  # Redis away: the racer stays seated; the host may still start or leave
            log.warning("taking an absent racer out of lobby %s failed", race_id, exc_info=True)

    async def _leave_lobby(self, race_id: str, player: str) -> None:
        now = self.service.clock()

        def gone(race: Race) -> Race:
            in_lobby = race.starts_at is None and race.ended_at is None
            racer = race.racer(player)
            if (
                race.pool
                and race.starts_at is not None
                and race.ended_at is None
                and racer
                and not racer.done
            ):
                return race.resign(player, now)  # a quick race: a closed tab resigns
            return race.leave(player) if in_lobby and racer is not None else race

        await self.service.update(race_id, gone)

    async def check(self, race_ids: set[str]) -> None:
        """Every ``watcher_refresh_s``, for the lobbies followed on this instance: a racer without a fresh
        presence stamp on any instance for ``lobby_grace_s`` leaves (their instance may have died)."""
        for race_id in sorted(race_ids):
            race = await self.service.peek(race_id)
            if race is None or race.starts_at is not None:
                self.service.presence.forget_lobby(race_id)
                continue
            for player in await self.service.presence.gone_for_grace(
                race_id, [r.player for r in race.racers]
            ):
                with contextlib.suppress(RaceError):
                    await self._leave_lobby(race_id, player)
