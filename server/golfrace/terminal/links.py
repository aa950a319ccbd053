"""A race's address as the web client shares it (``http://host:8000/r/<id>``, ``…/#/race/<id>``,
``…/watch/<id>``, ``…/#/watch/<id>``) -> the server's websocket URL and the race id."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from ..engine.errors import GolfError

RACE_IN_PATH = re.compile(r"/(?:r|race|watch)/([A-Za-z0-9_-]{1,40})/?$")


class LinkError(GolfError):
    code = "bad_link"


def race_link(url: str) -> tuple[str, str]:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https", "ws", "wss") or not parts.netloc:
        raise LinkError(f"not a race link: {url!r} (give http://host:port/r/<race id>)")
    found = RACE_IN_PATH.search(parts.fragment) or RACE_IN_PATH.search(parts.path)
    if found is None:
        raise LinkError(f"no race id in {url!r} (give http://host:port/r/<race id>)")
    scheme = "wss" if parts.scheme in ("https", "wss") else "ws"
    return f"{scheme}://{parts.netloc}/ws", found[1]
