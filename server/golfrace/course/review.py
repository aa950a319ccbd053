"""The knowledge review of a course near the top of its board (fair play 19.3, docs/course.md).

A finished course that would enter its board's first ``review_top`` places (``Leaderboards.would_rank``)
and has a hole of at least ``review_min_moves`` moves is *pending*: kept in ``lb:{B}:pending`` (player →
entry JSON with ``review: "pending"``), on no board, while each such hole's stored move log goes through the
races' knowledge review (``KnowledgeReviews.judge_game``: the solver on stock orders sampled from what the
player could see, against the true stock, in the same niced worker processes). One hole whose choices kept
needing the hidden stock holds the whole course: it goes to the board's review list (``review:
"knowledge"``, ``holes``: which); otherwise it goes onto its board as any other would have.

This is what stops a second identity that played the weekend's course first (its holes' stocks learnt by
drawing them) from posting a perfect round with the first. The review runs in a task of this instance; a
course whose instance stops before the verdict stays pending (unlike a race's result, no durable "to
review" record takes it over: see docs/course.md).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import Any

from golfrace.live.services import Context
from golfrace.races import knowledge
from golfrace.races import leaderboard as lb
from golfrace.races.knowledge import KnowledgeReviews
from golfrace.store import public_names as ranked

from .book import Card

log = logging.getLogger("golfrace.course")

Spawn = Callable[[Coroutine[Any, Any, None]], Any]


class CourseReview:
    def __init__(
        self, ctx: Context, boards: lb.Leaderboards, reviews: KnowledgeReviews, spawn: Spawn
    ) -> None:
        self.ctx = ctx
        self.boards = boards
        self.reviews = reviews
        self.spawn = spawn

    def _judged(self, card: Card) -> list[int]:
        """The holes (1-based) long enough to say something (``review_min_moves``)."""
        return [n for n, h in enumerate(card.holes, 1) if h.moves >= self.boards.checks.min_moves]

    async def hold(self, board: str, player: str, entry: Any, card: Card) -> bool:
        """Pend ``entry`` and start its review when it must wait for one; False when it goes on at once."""
        top = self.boards.review_top
        if top <= 0 or not self._judged(card) or not await self.boards.would_rank(board, player, entry, top):
            return False
        await self.boards.pend(board, player, entry, games=[h.game for h in card.holes])
        self.spawn(self._review(board, player, entry, card))
        return True

    async def _review(self, board: str, player: str, entry: Any, card: Card) -> None:
        try:
            held = await self._held_holes(card)
            await self.boards.unpend(board, player)
            if held:
                await self.boards.hold_for_review(board, player, entry, knowledge.KNOWLEDGE, holes=held)
                return
            await ranked.note_board(self.ctx.redis, player, board)
            await self.boards.submit(board, player, entry)
        except Exception:
            log.exception("the knowledge review of %s's course on %s failed; it stays pending", player, board)

    async def _held_holes(self, card: Card) -> list[int]:
        """The holes whose review holds them (the first one ends the review: one is enough)."""
        for n in self._judged(card):
            game = card.holes[n - 1].game
            stored = await self.ctx.store.load(game)
            if stored is None:  # expired meanwhile: nothing left to judge it by
                continue
            tokens = [entry.rpartition(" ")[0] for entry in await self.ctx.store.log(game)]
            outcome = await self.reviews.judge_game(str(stored.game.code), tokens, game)
            log.info("knowledge review of course hole %s (%s): score %.1f", n, game, outcome.score)
            if self.reviews.holds(outcome):
                return [n]
        return []
