"""What every load-generator connection of the benches holds, ours (``bench/server.py``'s ``Player``) or the
peer's (``bench/peer_client.py``'s ``PeerPlayer``): its socket, the deals it walks through (a code and the
moves of a line to its end, taken in turn from ``first``) and where it is on the current one."""

from __future__ import annotations

from typing import Any

from websockets.asyncio.client import ClientConnection

Line = tuple[str, list[dict[str, Any]]]
"""A deal's code and the moves of one line of play to its end."""


class LinePlayer:
    """A connection walking ``lines`` in turn, from ``first``: the state both players share."""

    def __init__(self, ws: ClientConnection, lines: list[Line], first: int) -> None:
        self.ws = ws
        self.lines = lines
        self.next_line = first
        self.game = ""
        self.line: list[dict[str, Any]] = []
        self.pos = 0
        self.seq = 0
        self.v = 0
