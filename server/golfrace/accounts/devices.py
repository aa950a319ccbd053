"""A session's device as its owner recognises it ("Mobile Safari", "iOS", "iPhone"), parsed from the
User-Agent by ua-parser (the maintained port of the uap-core rules) instead of the raw, cut-off string.

Parsing is a few milliseconds of regular expressions: it runs in a worker thread, on at most ``MAX_AGENT``
characters, and each distinct string once (a small cache)."""

from __future__ import annotations

import asyncio
from functools import lru_cache
from typing import Any

from ua_parser import parse

MAX_AGENT = 512
"""Characters of a User-Agent parsed (real ones are under 300; the rest is no device's)."""
UNKNOWN = {"browser": None, "os": None, "model": None}


def _known(family: str | None) -> str | None:
    return None if family in (None, "", "Other") else family


@lru_cache(maxsize=512)
def device_of(agent: str) -> dict[str, str | None]:
    """{"browser", "os", "model"}: each a family name, or None when the string does not tell."""
    if not agent:
        return dict(UNKNOWN)
    result = parse(agent[:MAX_AGENT])
    ua, os, device = result.user_agent, result.os, result.device
    return {
        "browser": _known(ua.family if ua else None),
        "os": _known(os.family if os else None),
        "model": _known(device.family if device else None),
    }


async def describe(agent: str) -> dict[str, Any]:
    return dict(await asyncio.to_thread(device_of, agent[:MAX_AGENT]))
