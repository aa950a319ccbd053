"""The friends extension (``EXTENSION``, installed by ``golfrace/server.py`` after the races and the accounts,
whose services it reaches through ``ports.py``): its handlers and start-up are ``wire.py``'s."""

from __future__ import annotations

from golfrace.http.extension import Extension

from . import wire

EXTENSION = Extension("friends", (wire,), startup=wire.startup, shutdown=wire.shutdown)
