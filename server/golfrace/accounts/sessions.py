"""Session tokens: ``<player id>.<43 characters of base64url>`` (256 random bits). Only the SHA-256 of a
token is stored (``acct:{P}:sess``), so a copy of Redis signs nobody in. The player id in front says which
account's hash to look in (one Redis slot); it is a public id, not a secret.

A browser holds its token in the ``golfrace_session`` cookie (HttpOnly, SameSite=Strict, Path=/, Secure
over HTTPS); the websocket handshake carries it, and a non-browser client sends it as ``hello.session``.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from http.cookies import CookieError, SimpleCookie

from golfrace.wire.ids import PLAYER_ID

COOKIE = "golfrace_session"
TOKEN = re.compile(rf"({PLAYER_ID.pattern})\.([A-Za-z0-9_-]{{43}})")
ID_LEN = 16
"""Characters of the hash shown as a session's id in the list (enough to sign one out, never the token)."""


def new_token(player: str) -> str:
    return f"{player}.{secrets.token_urlsafe(32)}"


def parse(token: object) -> tuple[str, str] | None:
    """``(player id, stored hash)`` of a well-formed token, else None."""
    if not isinstance(token, str):
        return None
    m = TOKEN.fullmatch(token)
    if m is None:
        return None
    return m.group(1), hashlib.sha256(token.encode()).hexdigest()


def from_cookie_header(header: str | None) -> str | None:
    if not header:
        return None
    try:
        jar = SimpleCookie(header)
    except CookieError:
        return None
    morsel = jar.get(COOKIE)
    return morsel.value if morsel is not None else None


def from_asgi_headers(headers: list[tuple[bytes, bytes]] | None) -> str | None:
    """The session token in the ``Cookie`` header of an ASGI scope (the websocket handshake)."""
    for name, value in headers or ():
        if name == b"cookie":
            token = from_cookie_header(value.decode("latin-1"))
            if token is not None:
                return token
    return None
