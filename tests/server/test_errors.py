"""One error root, one closed set of codes with a text in every catalog, one HTTP error shape."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from golfrace.accounts.errors import STATUS, AccountError
from golfrace.engine.errors import GolfError
from golfrace.engine.i18n import LOCALES, catalog
from golfrace.races.errors import RACE_ERROR_CODES, RaceError
from golfrace.wire.errors import ErrorCode, ProtocolError

pytestmark = pytest.mark.timeout(60)


def test_every_error_code_has_a_text_in_every_language() -> None:
    """The web client shows ui.errors[code] (never the server's English message) — the account pages
    account.errors[code] or account.errors[code_<reason>] —: every code the server can send has one, in each
    catalog, and the fallback names the code."""
    for locale in LOCALES:
        texts = catalog(locale)["ui"]["errors"]
        account = catalog(locale)["account"]["errors"]
        for code in (c.value for c in ErrorCode):
            found = [texts.get(code), account.get(code)]
            found += [text for key, text in account.items() if key.startswith(code + "_")]
            assert any(isinstance(t, str) and t.strip() for t in found), (locale, code)
        assert "{code}" in texts["other"], locale


def test_one_root_and_one_code_set() -> None:
    assert all(issubclass(e, GolfError) for e in (ProtocolError, RaceError, AccountError))
    assert set(RACE_ERROR_CODES) <= {c.value for c in ErrorCode}
    assert set(STATUS) <= {c.value for c in ErrorCode}, set(STATUS) - {c.value for c in ErrorCode}
    error = ProtocolError("no_game", "no game 'x'", ref="open", game="x")
    assert (error.code, str(error), error.params) == ("no_game", "no game 'x'", {"game": "x"})
    assert error.to_message() == {
        "t": "error",
        "code": "no_game",
        "message": "no game 'x'",
        "ref": "open",
        "params": {"game": "x"},
    }
    with pytest.raises(ValueError):
        ProtocolError("no_such_code", "a code outside the set is a server bug")


def test_every_account_code_is_raised() -> None:
    """No dead code in the accounts' set: each one is written somewhere in the server besides the set."""
    server = Path(__file__).resolve().parents[2] / "server" / "golfrace"
    sets = {server / "accounts" / "errors.py", server / "wire" / "errors.py"}
    text = "\n".join(path.read_text() for path in server.rglob("*.py") if path not in sets)
    assert [code for code in STATUS if f'"{code}"' not in text] == []


async def _race_in_play(make_client: Any) -> str:
    client = await make_client()
    await client.send({"t": "race_new", "seats": 1, "rid": "r1"})
    race = (await client.expect("race"))["race"]
    await client.send({"t": "race_start", "race": race})
    await client.expect("race", where=lambda m: m.get("phase") == "countdown")
    return str(race)


async def test_every_http_error_has_one_shape(server: Any, make_client: Any) -> None:
    race = await _race_in_play(make_client)
    cases = [
        ("GET", "/catalogs/xx.json", 404, "bad_locale"),
        ("GET", "/no/such/page", 404, "not_found"),
        ("POST", "/healthz", 405, "bad_method"),
        ("GET", "/api/races/rnosuchrace0", 404, "race_not_found"),
        ("GET", "/api/leaderboards/code/Z-1", 400, "bad_code"),
        ("GET", "/api/leaderboards/daily/2100-01-01", 400, "bad_date"),
        ("GET", "/api/leaderboards/daily/yesterday", 400, "bad_date"),
        ("GET", "/api/leaderboards/daily/2024-01-01?limit=0", 400, "bad_option"),
        ("GET", "/api/leaderboards/daily/2024-01-01?offset=x", 400, "bad_option"),
        ("GET", "/api/players/me/bests", 401, "bad_token"),
        ("GET", "/api/players/me/bests?token=forged", 401, "bad_token"),
        ("GET", "/api/games/rnosuchrace0-1", 404, "game_not_found"),
        ("GET", f"/api/games/{race}-1", 409, "game_not_ended"),
        ("GET", "/og/rnosuchrace0.png", 404, "race_not_found"),
        ("GET", "/icons/7.png", 404, "bad_option"),
        ("GET", "/api/players/me/stats", 401, "bad_token"),
        ("GET", "/api/daily/2100-01-01/scores", 400, "bad_date"),
        ("GET", "/api/account/profile", 401, "not_signed_in"),
        ("POST", "/api/account/signin", 400, "bad_request"),
    ]
    async with httpx.AsyncClient(base_url=server.http, timeout=10) as http:
        for method, path, status, code in cases:
            answer = await http.request(method, path)
            assert answer.status_code == status, (path, answer.text)
            body = answer.json()
            assert body["error"] == code and isinstance(body["message"], str) and body["message"], path
            assert set(body) <= {"error", "message", "params"}, (path, body)  # the one shape
            assert code in {c.value for c in ErrorCode}
