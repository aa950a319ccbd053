"""The course's server side: a course attempt recorded hole by hole from the stored games, its board entry,
and the weekend's daily course dealt hole by hole (docs/course.md).

- An **open course** (a code the player typed or drew in the page: its codes are no secret) is played as
  nine ordinary solo games; the page names each finished hole's game (``record_hole``), the server checks it
  (``holes.hole_result``) and records it; the ninth puts the course on ``course:<code>``.
- The **daily course** (``weekend.py``) is an account's alone: the server deals each hole as a sealed game
  (``daily_next``), records the hole before when it is over, and after the ninth puts the course on
  ``course-day:<day>``. A guest is refused (``account_required``): the page offers an open course instead.

A board keeps accounts only (``public_names``), ranked by ``ranking.course_key``; a course with a hinted
hole goes on none, and a daily course finished after its day's grace neither (``late``). Fair play: a course
with a hole whose move times no human makes (the ranked boards' timing check, ``holes.py``) goes on none
either; it is held in the board's review list (``lb:{B}:review``, ``review: "too_fast"`` with its ``holes``)
for a person, as a too-fast race result is (``review``). A course that would enter its board's first
``review_top`` places waits for the knowledge review of its holes (``review.py``; ``pending``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from golfrace.live.services import Context
from golfrace.races import leaderboard as lb
from golfrace.races.daily import code_public_at, day_of, next_day_ms
from golfrace.races.ranking import course_key
from golfrace.races.replay import TOO_FAST
from golfrace.store import course_keys as keys
from golfrace.store import public_names as ranked
from golfrace.store.keys import game_key, player_games

from ..engine import Status
from ..engine.course import HOLES, CourseCode, daily_share_text
from ..engine.i18n import LOCALES
from .book import Card, CourseBook
from .errors import CourseRefusal
from .holes import hole_result
from .review import CourseReview
from .weekend import daily_course, is_weekend


@dataclass(frozen=True, slots=True)
class CourseEntry:
    """A course on a board: its strokes, the nine holes' strokes, its time and moves summed."""

    player: str
    name: str
    strokes: int
    elapsed: int
    moves: int
    finished_at: int
    holes: list[int] = field(default_factory=list)
    username: str = ""

    @property
    def key(self) -> int:
        return course_key(self.strokes, self.elapsed, self.moves)


class CourseService:
    def __init__(
        self,
        ctx: Context,
        boards: lb.Leaderboards,
        secret: bytes,
        grace_s: int,
        review: CourseReview | None = None,
    ) -> None:
        self.ctx = ctx
        self.review = review
        self.boards = boards
        self.book = CourseBook(ctx.redis, boards.ttl_s or 30 * 86_400)
        self.secret = secret
        self.grace_s = grace_s

    # --- the hole -------------------------------------------------------------------------------------
    async def _hole(self, player: str, game_id: str, code: Any) -> Any:
        store = self.ctx.store
        stored = await store.load(game_id)
        log = await store.log(game_id) if stored is not None else []
        hinted = bool(await store.hinted(game_id)) if stored is not None else False
        return hole_result(stored, game_id, player, code, log, hinted, self.boards.checks)

    # --- an open course -------------------------------------------------------------------------------
    async def record_hole(self, player: str, course: CourseCode, n: int, game_id: str) -> dict[str, Any]:
        """Record ``game_id`` as hole ``n`` of ``player``'s attempt at ``course`` (hole 1 begins again);
        after the ninth, the course goes on its board. Returns the card and, once done, the board's answer."""
        if not 1 <= n <= HOLES:
            raise CourseRefusal("bad_option", f"a course has holes 1 to {HOLES}", hole=n)
        hole = await self._hole(player, game_id, course.hole(n))
        card = await self.book.record(keys.attempt(player, str(course)), n, hole, restart=True)
        out: dict[str, Any] = {"course": str(course), "card": card.view()}
        if card.finished and n == HOLES:
            out["board"] = await self._post(lb.course_board(course), player, card, counts=True)
        return out

    async def card(self, player: str, course: CourseCode) -> dict[str, Any]:
        return {
            "course": str(course),
            "card": (await self.book.card(keys.attempt(player, str(course)))).view(),
        }

    async def _post(self, board: str, player: str, card: Card, counts: bool) -> dict[str, Any]:
        """The finished ``card`` onto ``board`` when it may go there; what became of it. Fair play: a card
        with a hole no human plays this fast (``Hole.review``) is held in the board's review list, as a
        ranked race's too-fast result is (``Leaderboards.hold_for_review``), and shows nowhere."""
        names = await ranked.public_names(self.ctx.redis, player)  # accounts only on a public board
        hinted = any(h.hinted for h in card.holes)
        too_fast = [n for n, h in enumerate(card.holes, 1) if h.review is not None]
        reason = _kept_off(names is None, hinted, bool(too_fast), counts)
        entry = CourseEntry(
            player,
            names[0] if names is not None else "",
            card.strokes,
            sum(h.elapsed for h in card.holes),
            sum(h.moves for h in card.holes),
            self.ctx.clock(),
            [h.strokes for h in card.holes],
            names[1] if names is not None else "",
        )
        if reason == "review":
            await self.boards.hold_for_review(board, player, entry, TOO_FAST, holes=too_fast)
        if reason is None and self.review is not None and await self.review.hold(board, player, entry, card):
            reason = "pending"  # fair play 19.3: on its board once its knowledge review clears it
        elif reason is None:
            await ranked.note_board(self.ctx.redis, player, board)
            await self.boards.submit(board, player, entry)
        you = await self.boards.rank_of(board, player)
        total = await self.boards.total(board)
        return {"board": board, "posted": reason is None, "reason": reason, "you": you, "total": total}

    # --- the daily course -----------------------------------------------------------------------------
    def _today(self) -> date:
        return day_of(self.ctx.clock())

    def _public_at(self, day: date) -> int:
        return code_public_at(day, self.grace_s)

    async def daily_status(self, player: str | None, lang: str = "en") -> dict[str, Any]:
        now = self.ctx.clock()
        day = self._today()
        out: dict[str, Any] = {
            "date": day.isoformat(),
            "weekend": is_weekend(day),
            "next_at": next_day_ms(now),
            "board": lb.daily_course_board(day.isoformat()),
            "card": None,
            "share": None,
            "code": None,  # never while the day is on (fair play 11.2): the day's board page shows it after
        }
        if player is None or not out["weekend"]:
            return out
        card = await self.book.card(keys.daily_attempt(day.isoformat(), player))
        if card.played or any(card.dealt):
            out["card"] = card.view()
        if card.finished:
            out["share"] = daily_share_text(day.isoformat(), [h.strokes for h in card.holes], _locale(lang))
        return out

    async def daily_next(self, player: str, lang: str = "en") -> dict[str, Any]:
        """The caller's next hole of today's daily course: the hole being played, or — once it is over —
        the next one dealt; after the ninth, the card on the day's board."""
        day = self._today()
        if not is_weekend(day):
            raise CourseRefusal("not_weekend", "the daily course is played on Saturdays and Sundays")
        if await ranked.public_names(self.ctx.redis, player) is None:
            raise CourseRefusal("account_required", "the daily course is for signed-in players")
        course = daily_course(day, self.secret)
        key = keys.daily_attempt(day.isoformat(), player)
        card = await self.book.card(key)
        while not card.finished:
            n = card.played + 1
            dealt = card.dealt[n - 1]
            if dealt is None:
                dealt = await self._deal(key, day, course, n, player)
                if dealt is None:  # a concurrent request recorded the hole before: read again
                    card = await self.book.card(key)
                    continue
            stored = await self.ctx.store.load(dealt)
            if stored is not None and stored.game.status is Status.PLAYING:
                return {"date": day.isoformat(), "hole": n, "game": dealt, "card": card.view()}
            hole = await self._hole(player, dealt, course.hole(n))
            card = await self.book.record(key, n, hole, restart=False)
        counts = self.ctx.clock() < self._public_at(day)
        board = await self._post(lb.daily_course_board(day.isoformat()), player, card, counts)
        share = daily_share_text(day.isoformat(), [h.strokes for h in card.holes], _locale(lang))
        return {
            "date": day.isoformat(),
            "hole": None,
            "game": None,
            "card": card.view(),
            "share": share,
            **board,
        }

    async def _deal(self, key: str, day: date, course: CourseCode, n: int, player: str) -> str | None:
        """Hole ``n`` dealt as a sealed game of ``player`` and claimed (``CourseBook.deal``): the game that
        holds the hole. A game dealt by a request that lost the claim is removed at once, unseen."""
        meta = {"sealed": self._public_at(day), "course": "daily", "day": day.isoformat(), "hole": n}
        stored = await self.ctx.store.create(player, course.hole(n), True, meta, draws_final=True)
        held = await self.book.deal(key, n, stored.id)
        if held != stored.id:
            await self.ctx.redis.delete(game_key(stored.id))
            await self.ctx.redis.zrem(player_games(player), stored.id)
            self.ctx.store.forget(stored.id)
        return held

    async def day_codes(self, day: date) -> dict[str, Any]:
        """A daily course's codes, once its day and grace are over (``code_hidden`` before)."""
        if self.ctx.clock() < self._public_at(day):
            raise CourseRefusal("code_hidden", "the daily course of that day is still on")
        course = daily_course(day, self.secret)
        return {"date": day.isoformat(), "code": str(course), "holes": [str(c) for c in course.holes]}


def _kept_off(guest: bool, hinted: bool, too_fast: bool, counts: bool) -> str | None:
    """Why a finished course goes on no board (the first reason that applies), or None."""
    for reason, applies in (("guest", guest), ("hinted", hinted), ("review", too_fast), ("late", not counts)):
        if applies:
            return reason
    return None


def _locale(lang: str) -> str:
    return lang if lang in LOCALES else "en"
