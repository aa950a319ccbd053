"""For tests of other parts that need an account and not the sign-up itself (which tests/accounts covers):
the account record written straight into Redis, as a sign-up writes it."""

from __future__ import annotations

from typing import Any

from golfrace.accounts import keys


async def make_account_record(redis: Any, player: str, username: str, display: str = "") -> None:
    """Make ``player`` an account (public boards take accounts only); no session, no password."""
    await redis.hset(
        keys.account(player), mapping={"username": username, "display": display, "created": 0, "renamed": 0}
    )


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
