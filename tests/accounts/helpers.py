"""For tests of other parts that need an account and not the sign-up itself (which tests/accounts covers):
the account record written straight into Redis, as a sign-up writes it."""

from __future__ import annotations

import json
import time
from typing import Any

from golfrace.accounts import sessions
from golfrace.store import account_keys as keys


async def make_account_record(redis: Any, player: str, username: str, display: str = "") -> None:
    """Make ``player`` an account (public boards take accounts only); no session, no password."""
    await redis.hset(
        keys.account(player), mapping={"username": username, "display": display, "created": 0, "renamed": 0}
    )


async def sign_in_client(redis: Any, client: Any, username: str = "", display: str = "") -> str:
    """Make the client's player an account with a live session (written straight into Redis, as a sign-up
    and a sign-in write them) and say ``hello`` again on its connection with that session, so that the
    connection is the account's: ranked races seat accounts only, and only they are dealt the day's deal.
    Returns the session token."""
    player = str(client.player)
    await make_account_record(redis, player, username or "u" + player[1:9], display)
    token = sessions.new_token(player)
    parsed = sessions.parse(token)
    assert parsed is not None
    now = int(time.time() * 1000)
    await redis.hset(
        keys.sessions(player), parsed[1], json.dumps({"created": now, "seen": now, "agent": "test"})
    )
    await redis.expire(keys.sessions(player), 86_400)
    await client.send({"t": "hello", "token": client.token, "session": token})
    welcome = await client.expect("welcome", 10.0, where=lambda m: m.get("account") is not None)
    assert welcome["player"] == player, welcome
    return token


def sign_up_in_page(page: Any, password: str = "a long and rare phrase") -> str:
    """Sign the page's player up (username and password, through the page's own fetch, so the browser gets
    the session cookie) and reload, so that its websocket is the account's; returns the username."""
    import secrets

    username = "Br" + secrets.token_hex(4)
    status = page.evaluate(
        """async ([username, password]) => {
          const token = window.golfrace.conn.token;
          const headers = {'Content-Type': 'application/json'};
          const body = JSON.stringify({username, password, token});
          const r = await fetch('/api/account/signup', {method: 'POST', headers, body});
          return r.status;
        }""",
        [username, password],
    )
    assert status == 201, status
    page.reload()
    page.wait_for_function("window.golfrace.conn.welcome?.account != null")
    return username
