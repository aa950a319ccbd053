"""``golfrace bot --strength N``: a bot that races in the quick-race pool like a person would, for bot
authors: it seeks a race (``pool_join``), joins the race it is given, plays its seat from what it sees at a
human pace (``golfrace.strategy.move_delay_ms``), and reports its place and rating change. Its strength is
one of ``golfrace.strategy.STRENGTHS`` (docs/bots.md: what each knows and how it chooses, and the measured
ladder): the same choice as the server's own bot seats, from the same knowledge — the cards on show and every
card it has seen go by (it counts cards as they do), never the stock's order. Its pace does not depend on
its strength (``median_ms``)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from golfrace import strategy
from golfrace.engine import Tap
from golfrace.engine.rules import DEFAULT_RULES
from golfrace.strategy import Visible
from golfrace_client.client import START_WAIT_S, Client
from golfrace_client.view import GameView

MEDIAN_MS = 1_400.0
MAX_ACTIONS = 500


@dataclass(frozen=True, slots=True)
class RaceResult:
    race: str
    place: int | None
    racers: int
    score: int
    status: str
    rating: int | None
    delta: int | None


def in_view(state: dict[str, Any]) -> set[str]:
    """The cards a seat's public state shows now: the columns and the discard."""
    shown = {card for col in state["columns"] for card in col}
    return shown | ({state["discard"]} if state.get("discard") else set())


def choose(
    view: GameView, strength: int, rng: random.Random, seen: set[str] | frozenset[str] = frozenset()
) -> dict[str, Any]:
    """A move from the seat's public view and ``seen``, the cards this client has seen go by:
    ``golfrace.strategy``'s, as the server's own bot seats choose (it never sees the stock)."""
    visible = Visible.from_state(view.state, seen=seen)  # the stock sampled from the cards never seen
    action = strategy.choose(visible, strategy.strength(strength), rng)
    if isinstance(action, Tap):
        return {"a": "tap", "col": action.column}
    return {"a": "draw"}


async def race_once(
    client: Client, strength: int, rules: str, rng: random.Random, median_ms: float = MEDIAN_MS
) -> RaceResult:
    await client.send({"t": "pool_join", "rules": rules})
    found = await client.expect("pool_found", 120.0)
    race_id = found["race"]
    await client.send({"t": "race_join", "race": race_id})
    view = await client.expect("race", 30.0, where=lambda m: m["race"] == race_id)
    game = view["you"]["game"]
    seat = await client.open(game)
    seen: set[str] = set()
    for _ in range(MAX_ACTIONS):
        seen |= in_view(seat.state)  # counting cards: each one that was ever in view
        if seat.status != "playing":
            break
        tempo = median_ms / strategy.pace.MOVE_MEDIAN_MS
        await asyncio.sleep(strategy.move_delay_ms(rng, tempo=tempo) / 1000)
        answer = await client.act(game, **choose(seat, strength, rng, seen))
        if answer["t"] == "refused" and answer.get("code") == "race_not_started":
            continue  # the countdown (the first move waits for it at the bot's own pace)
        if answer["t"] != "ack":
            break
        seat = await client.wait_version(game, answer["v"])
    end = await client.expect(
        "race", 1_800.0, where=lambda m: m["race"] == race_id and m["phase"] == "finished"
    )
    mine = next(r for r in end["results"] if r["player"] == client.player)
    rating = delta = None
    for _ in range(40):
        await client.send({"t": "pool_result", "race": race_id})
        result = await client.expect("pool_result", 10.0, where=lambda m: m["race"] == race_id)
        if result["state"] != "pending":
            rating, delta = result["rating"], result["delta"]
            break
        await asyncio.sleep(0.5)
    await client.send({"t": "unwatch", "race": race_id})
    places = len(end["results"])
    return RaceResult(race_id, mine["rank"], places, mine["score"], mine["status"], rating, delta)


async def run_pool(
    url: str,
    strength: int,
    races: int,
    rules: str = DEFAULT_RULES.value,
    seed: int | None = None,
    name: str | None = None,
    say: Callable[[str], None] | None = None,
) -> list[RaceResult]:
    """``races`` pool races in a row. A server that cannot take players yet (not listening, or a Redis
    Cluster still syncing: ``unavailable``) is waited for up to ``START_WAIT_S``, told to ``say`` (issue
    20.13), like ``golfrace bot``'s solo games."""
    rng = random.Random(seed)
    out = []
    client = Client(url, keep_frames=False, name=name or f"Bot {strength}")
    await client.start(wait_s=START_WAIT_S, say=say)
    try:
        for _ in range(races):
            out.append(await race_once(client, strength, rules, rng))
            client.drain()
    finally:
        await client.close()
    return out
