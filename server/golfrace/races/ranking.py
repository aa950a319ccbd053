"""The one ranking rule of every result: a race's results, the code and daily boards, personal bests.

Lowest first:

1. the final score, higher first (``engine.final_score``: stopping early scores like a stuck game);
2. **a game played to its own end before one stopped, before one that played no move** (fair play 19.8,
   11.6): a result of no move — resigned in the countdown, or stopped before a first move — never ranks
   above a played game with the same score, and a game stopped before its end (resigned, abandoned, out of
   time: "scored as stuck") never above one played on to its end (won or stuck) or still playing. Scores
   floor at 0: without this rule a countdown resignation (0 points in 0 ms) outranked an honest game that
   ended on 0 points after minutes of play, and so did a resignation after one move (a quick race rated a
   resigned racer above a bot stuck at 17 cards; a daily resigned after one draw topped an honest stuck 0
   on the public board). Races, ratings and every board (``composite``) rank by all three levels;
3. the elapsed time, shorter first;
4. the moves, fewer first;
5. then the earlier finish (and in a race, the seat).

``order`` is the rule as a tuple (races sort by it); ``composite`` packs 1–4 into one integer below 2**53,
so a Redis sorted set (a double) orders board entries exactly by it:

    (350 - score) << 44  |  end << 42  |  min(elapsed_ms, 2**26 - 1) << 16  |  min(moves, 2**16 - 1)

with ``end`` 0 (played to its end), 1 (stopped) or 2 (no move). 2**26 ms is 18.6 hours: a game idle for
``idle_forfeit_s`` is forfeited and a race's time limit is at most an hour, so a result that counts does not
last that long, and one that did would only rank as if it took 18.6 hours. The 5th part is the board
member's order. Entries stored before the stopped level (a no-move bit at 43, 27 bits of time) read the
same under this layout: the no-move bit is ``end`` 2, and the time's 27th bit was 0 under 18.6 hours.

A race's standings (``standings``) sort its racers by ``order`` of their results, then the earlier finish,
then the seat. Scores are ``engine.final_score``: a won or stuck game's own (a stuck game loses 10 a card
left); a racer who resigned, abandoned or was stopped by the time limit scores like a stuck game, so that
stopping never beats playing on (nor at the floor of 0 points: the rule's second part).

A nine-deal course (engine/course.py) ranks by the same rule with its strokes in place of the score, lower
first: ``course_key`` is ``composite`` of ``MAX_SCORE - strokes`` (a course's strokes are at most 315), so
the ties fall to the same parts 2–4 (a course of no move, the course's time, its moves; a course is never
stopped: its holes are solo games played to their end).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine.deal import TABLEAU
from ..engine.game import POINTS_PER_CARD
from .racer import STOPPED, Racer, Seats

if TYPE_CHECKING:
    from .race import Race

MAX_SCORE = TABLEAU * POINTS_PER_CARD
MOVES_BITS = 16
ELAPSED_BITS = 26
END_SHIFT = ELAPSED_BITS + MOVES_BITS
END_BITS = 2
SCORE_SHIFT = END_SHIFT + END_BITS
"""The composite's score part starts here (``daily_stats`` counts scores by ranges of it)."""


def played(moves: int) -> bool:
    """Whether a result played a move (a draw or a removal)."""
    return moves > 0


def end(moves: int, stopped: bool) -> int:
    """Part 2 of the rule: 0 a game played to its own end (or still playing), 1 one stopped before it
    (resigned, abandoned, out of time), 2 one that played no move."""
    return 2 if not played(moves) else 1 if stopped else 0


def order(score: int, moves: int, elapsed_ms: int, stopped: bool = False) -> tuple[int, int, int, int]:
    """Parts 1–4 of the rule as a sort key (lowest first); ``stopped``: the game was stopped before its own
    end (resigned, abandoned, out of time)."""
    return (-score, end(moves, stopped), max(0, elapsed_ms), max(0, moves))


def composite(score: int, elapsed_ms: int, moves: int, stopped: bool = False) -> int:
    """``order`` packed into one integer below 2**53 (a board's sorted-set score)."""
    if not 0 <= score <= MAX_SCORE:
        raise ValueError(f"score {score} outside 0..{MAX_SCORE}")
    elapsed = min(max(0, elapsed_ms), 2**ELAPSED_BITS - 1)
    capped = min(max(0, moves), 2**MOVES_BITS - 1)
    return int(
        ((MAX_SCORE - score) << SCORE_SHIFT)
        | (end(moves, stopped) << END_SHIFT)
        | (elapsed << MOVES_BITS)
        | capped
    )


def course_key(strokes: int, elapsed_ms: int, moves: int) -> int:
    """A nine-deal course's board key: fewer strokes first, then parts 2–4 of the rule (``composite``)."""
    if not 0 <= strokes <= MAX_SCORE:
        raise ValueError(f"strokes {strokes} outside 0..{MAX_SCORE}")
    return composite(MAX_SCORE - strokes, elapsed_ms, moves)


def standings(race: Race, seats: Seats) -> list[Racer]:
    """The racers of ``race``, first place first (the module's docstring)."""

    def key(r: Racer) -> tuple[tuple[int, int, int, int], int, int]:
        seat = seats.get(r.seat)
        moves = seat.game.moves if seat else 0
        finished = r.finished_at if r.finished_at is not None else 2**62
        stopped = r.outcome in STOPPED  # stopping never beats playing on, a floor of 0 points too
        return (order(r.final_score(seat), moves, race.elapsed(r, finished), stopped), finished, r.seat)

    return sorted(race.racers, key=key)
