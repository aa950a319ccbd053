"""Checks shared by the server tests: no face-down stock card and no hidden code in any received frame."""

from __future__ import annotations

import sys
from typing import Any

from golfrace.engine import Action, Card, Game, GameCode, Rules, Status, deal, token
from golfrace.engine.errors import CardError
from golfrace_client.client import Client

sys.setrecursionlimit(max(sys.getrecursionlimit(), 5000))


def _winning_line(budget: int = 20_000) -> tuple[str, str]:
    """The first easy code (by seed) with a win, and its moves, found by a small depth-first search, so
    the tests do not depend on the exact shuffle."""

    def search(game: Game, path: list[Action], seen: set[object], left: list[int]) -> list[Action] | None:
        if game.status is Status.WON:
            return path
        key = (game.heights, game.drawn, game.discard)
        if key in seen or left[0] <= 0:
            return None
        seen.add(key)
        left[0] -= 1
        for action in game.legal_actions():
            found = search(game.apply(action), [*path, action], seen, left)
            if found:
                return found
        return None

    for seed in range(1, 500):
        code = GameCode(Rules.EASY, seed)
        line = search(Game.new(code), [], set(), [budget])
        if line:
            return str(code), " ".join(token(a) for a in line)
    raise RuntimeError("no winnable deal found")


WIN_CODE, WIN_MOVES = _winning_line()


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


def _is_card(text: str) -> bool:
    if len(text) != 2:
        return False
    try:
        Card.parse(text)
    except CardError:
        return False
    return text == text.upper()


def assert_no_leak(client: Client, codes: dict[str, str], hidden: set[str] | None = None) -> int:
    """Walk every frame ``client`` received, in order. ``codes`` maps game id → code. A card may appear only
    once the client could know it (tableau, first discard, or drawn earlier in that game); the code of a
    game in ``hidden`` only once that game is over. Returns the number of frames checked."""
    hidden = hidden or set()
    known: dict[str, set[str]] = {}
    over: set[str] = set()
    secret_letters = {gid: GameCode.parse(code).letters for gid, code in codes.items()}
    for gid, code in codes.items():
        d = deal(GameCode.parse(code))
        known[gid] = {c.code for col in d.columns for c in col} | ({d.discard.code} if d.discard else set())
    all_known = set().union(*known.values()) if known else set()
    for frame in client.frames:
        gid = frame.get("game")
        if frame.get("t") == "diff" and gid in known and frame.get("drawn"):
            known[gid].add(frame["drawn"])
            all_known.add(frame["drawn"])
        ok = known.get(gid, all_known) if isinstance(gid, str) else all_known
        for text in _strings(frame):
            if _is_card(text):
                assert text in ok, f"card {text} leaked in {frame}"
        status = frame.get("status") or (frame.get("state") or {}).get("status")
        if isinstance(gid, str) and status in ("won", "stuck"):
            over.add(gid)
        for hidden_id in hidden:
            if hidden_id not in over:
                blob = " ".join(_strings(frame)).upper()
                assert secret_letters[hidden_id] not in blob, f"hidden code of {hidden_id} leaked in {frame}"
    return len(client.frames)


# --- injected faults (the recovery tests) ---------------------------------------------------------------
def fail_once(obj: Any, name: str, error: BaseException) -> dict[str, int]:
    """Make the coroutine method ``obj.<name>`` raise ``error`` on its first call and behave afterwards;
    returns the call counter."""
    real = getattr(obj, name)
    calls = {"n": 0}

    async def patched(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            raise error
        return await real(*args, **kwargs)

    setattr(obj, name, patched)
    return calls


def drop_first_message(hub: Any) -> dict[str, int]:
    """The hub loses the first message it reads from Redis (as across a reconnect): a gap to fill. Returns
    the counter of messages read."""
    real = hub._dispatch
    seen = {"n": 0}

    def dispatch(name: str, raw: bytes) -> None:
        seen["n"] += 1
        if seen["n"] > 1:
            real(name, raw)

    hub._dispatch = dispatch
    return seen
