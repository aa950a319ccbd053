"""A bot that plays whole games over the protocol, choosing among the legal moves of its public view."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass

from golfrace_client.client import START_WAIT_S, Client, RequestError
from golfrace_client.view import GameView

MAX_ACTIONS = 500
RATE_BACKOFF = 0.25
ACT_TIMEOUT_S = 30.0
"""How long one move is sent again (Redis away, rate limit) before the bot gives up."""


@dataclass(frozen=True, slots=True)
class Result:
    game: str
    status: str
    score: int
    moves: int
    code: str | None


def choose(view: GameView, rng: random.Random) -> dict[str, object]:
    """Prefer removing a card (random among playable columns); draw only when nothing can be removed."""
    legal = view.legal()
    taps = [a for a in legal if a["a"] == "tap"]
    return rng.choice(taps) if taps else legal[0]


async def play_game(
    client: Client,
    code: str | None = None,
    rules: str | None = None,
    seed: int | None = None,
    max_actions: int = MAX_ACTIONS,
) -> Result:
    rng = random.Random(seed)
    while True:
        try:
            view = await client.new(code, rules)
            break
        except RequestError as exc:  # a game played flat out can spend the burst: wait for tokens
            if exc.code != "rate_limited":
                raise
            await asyncio.sleep(RATE_BACKOFF)
    for _ in range(max_actions):
        if view.status != "playing":
            break
        action = choose(view, rng)
        # rate_limited, unavailable (unknown: it may have been applied), busy: Client.act sends the same seq
        # again until it gets the move's one answer; a seq is never applied twice
        seq = client.next_seq()
        answer = await client.act(view.game, seq=seq, timeout=ACT_TIMEOUT_S, **action)  # type: ignore[arg-type]
        if answer["t"] != "ack":
            raise RuntimeError(f"the server did not take a legal move {action}: {answer}")
        await client.wait_version(view.game, answer["v"])
        client.drain()
    result = Result(
        view.game, view.status, int(view.state["score"]), int(view.state["moves"]), view.state["code"]
    )
    await client.close_game(view.game)  # a connection follows at most limits.max_open_games games
    return result


async def run(
    url: str,
    games: int,
    rules: str | None = None,
    seed: int | None = None,
    say: Callable[[str], None] | None = None,
) -> list[Result]:
    results = []
    client = await Client(url, keep_frames=False).start(wait_s=START_WAIT_S, say=say)
    try:
        for n in range(games):
            results.append(await play_game(client, rules=rules, seed=None if seed is None else seed + n))
            client.drain()
    finally:
        await client.close()
    return results
