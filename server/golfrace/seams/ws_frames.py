"""Websocket frames made once for many connections, by websockets' ``Frame.serialize``; and the name under
which the websocket protocol (``uvicorn_ws``) offers to write them. Depends on websockets only, so that the
app runs (framing per send) on an uvicorn whose sans-I/O protocol ``uvicorn_ws`` cannot subclass."""

from __future__ import annotations

from websockets.frames import Frame, Opcode

FRAMES = "golfrace.frames"
"""The ASGI scope extension under which the protocol offers ``can_write_frames``/``write_frame``."""


def frame(data: bytes | str) -> bytes:
    """``data`` as one unmasked, uncompressed websocket data frame, as a server sends it: binary for bytes,
    text for str (UTF-8)."""
    if type(data) is str:
        return Frame(Opcode.TEXT, data.encode()).serialize(mask=False)
    return Frame(Opcode.BINARY, data).serialize(mask=False)  # type: ignore[arg-type]
