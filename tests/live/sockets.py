"""An in-memory socket for sessions made without a websocket: it keeps what a session writes to it."""

from __future__ import annotations

import json
from typing import Any


class Recorded:
    """``live.writer.Socket`` in memory: every frame written (decoded from JSON) and the close code."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []
        self.closed: int | None = None

    async def send_bytes(self, data: bytes) -> None:
        raise AssertionError("a JSON session writes text frames")

    async def send_text(self, data: str) -> None:
        self.frames.append(json.loads(data))

    async def close(self, code: int = 1000) -> None:
        self.closed = code
