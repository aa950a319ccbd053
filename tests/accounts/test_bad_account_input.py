"""No 500 on bad input (issue 20.16): every account route, signed in and not, fed lone surrogates
(``\\ud800`` escaped in JSON, as any script can send), deep nesting, odd numbers and odd shapes, over real
HTTP. Each answer is a documented refusal (``errors.STATUS``) or a success, never a 500."""

from __future__ import annotations

import json
from typing import Any

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from golfrace.accounts.errors import STATUS
from golfrace.accounts.routes import routes

from .conftest import PASSWORD, new_name, sign_up

POSTS = [r.path for r in routes() if "POST" in (getattr(r, "methods", None) or ())]
GETS = [r.path for r in routes() if "POST" not in (getattr(r, "methods", None) or ())]
FIELDS = ["username", "password", "display", "token", "challenge_id", "credential", "current", "confirm",
          "sessions", "all"]  # fmt: skip
JSON = {"Content-Type": "application/json"}


def surrogate_json(value: Any) -> bytes:
    """JSON with lone surrogates escaped (``"\\ud800"``): valid JSON text, a Python str that cannot be
    encoded to UTF-8."""
    return json.dumps(value, ensure_ascii=True).encode()


FIXED: list[bytes] = [
    surrogate_json({"challenge_id": "\ud800", "credential": {}}),
    surrogate_json({"challenge_id": "\udfff", "credential": {"id": "\ud800", "response": {"x": "\ud800"}}}),
    surrogate_json({"username": "\ud800bc", "password": "\ud800" * 12, "display": "\udc00"}),
    surrogate_json({"username": "Abc\ud800", "password": PASSWORD}),
    surrogate_json({"token": "\ud800", "username": new_name(), "password": PASSWORD}),
    surrogate_json({"sessions": ["\ud800"], "confirm": "\ud800", "current": "\ud800"}),
    surrogate_json({"\ud800": "\ud800"}),
    b'{"challenge_id": "\\ud800\\udc00"}',  # a pair: one character, fine
    b"[" * 5000 + b"]" * 5000,
    b'{"credential": ' + b"[" * 3000 + b"]" * 3000 + b"}",
    b'{"challenge_id": NaN, "credential": Infinity}',
    b'{"username": 1e999, "password": -Infinity}',
    b'{"challenge_id": ' + b"9" * 5000 + b"}",
    b'{"challenge_id": "x", "challenge_id": null}',
    b'{"credential": {"id": 7, "rawId": [], "response": null, "type": {}}}',
    b'{"credential": "' + b"A" * 15000 + b'"}',
    b'{"sessions": "all", "all": "yes"}',
    b"\xef\xbb\xbf{}",  # a byte-order mark
    b'{"username": "\x00", "password": "\x00"}',
    b"null",
    b"",
]

text = st.text(st.characters(codec=None, categories=None), max_size=12) | st.sampled_from(
    ["\ud800", "\udfff", "a\udc00b", "\ud83d", ""]
)
leaf = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | text
value = st.recursive(
    leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3)
)
body = st.fixed_dictionaries({}, optional={f: value for f in FIELDS})


def refusal_or_success(resp: httpx.Response, what: object) -> None:
    assert resp.status_code < 500, (what, resp.status_code, resp.text[:300])
    if resp.status_code >= 400:
        answer = resp.json()
        assert answer["error"] in STATUS and isinstance(answer["message"], str), (what, answer)


async def _signed_in_client(http: httpx.AsyncClient) -> None:
    await sign_up(http, new_name("Fz"), PASSWORD)  # the cookie stays in the client


async def test_lone_surrogates_in_the_passkey_routes_are_refused_not_500(http: httpx.AsyncClient) -> None:
    for path in ("/api/account/passkey/signup", "/api/account/passkey/signin"):
        resp = await http.post(path, content=surrogate_json({"challenge_id": "\ud800", "credential": {}}),
                               headers=JSON)  # fmt: skip
        assert resp.status_code == 400 and resp.json()["error"] == "bad_request", (path, resp.text)


async def test_every_account_route_refuses_odd_bodies_with_a_code(http: httpx.AsyncClient) -> None:
    for signed_in in (False, True):
        if signed_in:
            await _signed_in_client(http)
        for path in POSTS:
            for raw in FIXED:
                resp = await http.post(path, content=raw, headers=JSON)
                refusal_or_success(resp, (path, raw[:80], signed_in))
        for path in GETS:
            resp = await http.get(path, params={"x": "\ud800".encode("utf-8", "surrogatepass")})
            refusal_or_success(resp, path)


async def test_odd_cookies_and_headers_are_refused_not_500(http: httpx.AsyncClient) -> None:
    odd = ("golfrace_session=\udcff".encode("utf-8", "surrogateescape"), b"golfrace_session=%ED%A0%80")
    for cookie in odd:
        for path in [*GETS, "/api/account/signout"]:
            headers = {"content-type": b"application/json", "cookie": cookie, "user-agent": b"\xff\xfe"}
            method = "POST" if path in POSTS else "GET"
            resp = await http.request(method, path, content=b"{}", headers=headers)
            refusal_or_success(resp, (path, cookie))


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(path=st.sampled_from(POSTS), data=body)
async def test_fuzz_every_post_route(http: httpx.AsyncClient, path: str, data: dict[str, Any]) -> None:
    resp = await http.post(path, content=surrogate_json(data), headers=JSON)
    refusal_or_success(resp, (path, data))
