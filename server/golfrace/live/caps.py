"""Connections capped per client network and per player, on each server instance (issue 19.4).

A connection is counted for its network from its handshake (``admit``) and for its player from its first
``hello`` (``admit_player``) until it ends (``release``). Beyond ``Settings.max_connections_per_network`` a
new connection is accepted and at once closed with ``CLOSE_TOO_MANY_CONNECTIONS`` (``wire/protocol.py``; so
a page sees the code, not a failed handshake); beyond ``max_connections_per_player`` the ``hello`` closes
its connection with the same code. Counted in this process: behind N instances a network may hold up to N
times the cap, which bounds what one script can pin on any one of them.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from golfrace.live.session import Session
    from golfrace.settings import Settings


class ConnectionCaps:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.networks: Counter[str] = Counter()
        self.players: Counter[str] = Counter()

    def admit(self, net: str) -> bool:
        """Count a new connection for ``net`` (its session then carries it as ``caps_net``); False (nothing
        counted) when the network is at its cap."""
        if self.networks[net] >= self.settings.max_connections_per_network:
            return False
        self.networks[net] += 1
        return True

    def admit_player(self, session: Session, player: str) -> bool:
        """Count the connection for ``player`` at its first ``hello``; False when the player is at its cap."""
        if session.caps_player == player:
            return True
        if self.players[player] >= self.settings.max_connections_per_player:
            return False
        self._drop(self.players, session.caps_player)
        self.players[player] += 1
        session.caps_player = player
        return True

    def release(self, session: Session) -> None:
        self._drop(self.networks, session.caps_net)
        self._drop(self.players, session.caps_player)
        session.caps_net = session.caps_player = None

    @staticmethod
    def _drop(counter: Counter[str], key: str | None) -> None:
        if key is None:
            return
        counter[key] -= 1
        if counter[key] <= 0:
            del counter[key]
