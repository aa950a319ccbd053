"""Exact search where a draw is always allowed (all rules but ``strict``): bit-parallel, phase by phase.

Two facts make it fast:

- **Dominance.** With the same heights and the same discard rank, having drawn fewer cards is never worse:
  the player can always draw several cards in a row to catch up. So a pair (heights, discard rank) needs
  exploring only once, at the first stock *phase* (number of cards drawn) where it is reached.
- **Bit parallelism.** For each discard rank, the set of positions reached is one Python integer of
  6**7 = 279,936 bits, a position being the number of cards removed from each column, packed as
  ``sum(removed_c * 6**c)`` (the start is bit 0, so early sets are short integers and cheap to work on).
  Removing the free card of column ``c`` from a whole set is one left shift by ``6**c``, after masking
  with "the free card of column c has rank q": the members moved then lead to discard rank ``q``.

Phase ``k`` starts from every heights reached so far (the player may draw from any of them) with the
``k``-th stock card on the discard, and closes the sets under removals, round by round (a round lengthens
every run of removals by one card). The deal is won when the empty tableau (the top bit) is reached;
otherwise, once the stock is exhausted, the most cards removable is read from the reached position with
the most cards removed. The sets first reached in each phase are kept, so that a line to any reached
position can be traced back.
"""

from __future__ import annotations

from dataclasses import dataclass

from .actions import Action, Draw, Tap
from .deal import COLUMNS, ROWS, TABLEAU
from .solver_space import RANKS, SPACE, STRIDE, Meter, Position, levels, pack, slabs, unpack

FULL = SPACE - 1  # the index of the empty tableau: 5 cards removed from every column


@dataclass(frozen=True, slots=True)
class Outcome:
    """``complete`` is False when the budget ran out; ``best`` is then a lower bound."""

    complete: bool
    won: bool
    best: int
    line: tuple[Action, ...]


def removed_index(heights: tuple[int, ...]) -> int:
    """The position index: cards removed per column, packed in base 6 (digit-wise ``5 - h``)."""
    return FULL - pack(heights)


def search(pos: Position, meter: Meter) -> Outcome:
    free, present, onto = _removals(pos)
    counting = meter.max_states is not None
    explored = [0] * RANKS  # per discard rank: positions explored in any phase so far
    reached = 0  # positions reached in any phase, any discard
    phases: list[list[int]] = []  # phases[k - drawn][r]: positions first reached in phase k, discard r
    phase, top, seeds = pos.drawn, pos.top, 1 << removed_index(pos.heights)
    complete = won = False
    while True:
        before = list(explored)
        frontier = [0] * RANKS
        fresh = seeds ^ (seeds & explored[top])
        explored[top] |= fresh
        frontier[top] = fresh
        if counting:
            meter.states += fresh.bit_count()
        active = bool(fresh)
        while active:
            moved = [0] * RANKS
            for q in present:
                able = 0  # frontier members whose discard takes a card of rank q
                for r in onto[q]:
                    able |= frontier[r]
                if able:
                    acc = 0
                    for stride, mask in free[q]:
                        acc |= (able & mask) << stride
                    moved[q] = acc
            active = False
            for q in present:
                w = moved[q]
                if w:
                    w ^= w & explored[q]
                    if w:
                        explored[q] |= w
                        active = True
                        won = won or w.bit_length() > FULL  # the empty tableau is the highest index
                frontier[q] = w
            if counting:
                meter.states += sum(f.bit_count() for f in frontier)
            if won or meter.exhausted():
                break
        # an unchanged set is the same object: skip the full-length XOR
        firsts = [0 if now is old else now ^ old for now, old in zip(explored, before, strict=True)]
        phases.append(firsts)
        for f in firsts:
            if f:
                reached |= f
        if won or active or phase >= len(pos.stock):
            complete = won or not active
            break
        seeds, top, phase = reached, pos.stock[phase], phase + 1
    if not counting:
        meter.states += sum(e.bit_count() for e in explored)
    return _outcome(pos, phases, reached, won, complete)


Removals = tuple[list[list[tuple[int, int]]], list[int], list[tuple[int, ...]]]
"""``free[q]``: (column stride, positions whose column shows a free card of rank q) for each such column;
the ranks ``present`` with such a column; ``onto[q]``: the discard ranks (among those that can show) a card
of rank q may be removed onto."""


def _removals(pos: Position) -> Removals:
    """The removals of ``pos``'s deal, as masks over the position sets (``Removals``)."""
    slab = slabs()
    masks: dict[tuple[int, int], int] = {}
    for c, col in enumerate(pos.columns):
        for gone in range(ROWS):
            key = (col[ROWS - 1 - gone], c)
            masks[key] = masks.get(key, 0) | slab[c][gone]
    free: list[list[tuple[int, int]]] = [[] for _ in range(RANKS)]
    for (q, c), mask in sorted(masks.items()):
        free[q].append((STRIDE[c], mask))
    present = [q for q in range(RANKS) if free[q]]
    shown = set(present) | set(pos.stock[pos.drawn :]) | {pos.top}
    onto = [tuple(r for r in sorted(shown) if q in pos.succ[r]) for q in range(RANKS)]
    return free, present, onto


def _outcome(pos: Position, phases: list[list[int]], reached: int, won: bool, complete: bool) -> Outcome:
    """The search's result: the deepest position reached and a line to it."""
    target, removed = _deepest(reached)
    line = _trace(pos, phases, target)
    if not won and complete:
        # draw out the stock: the game then ends stuck (any removal would beat the maximum)
        line += (Draw(),) * (len(pos.stock) - pos.drawn - line.count(Draw()))
    return Outcome(complete or won, won, removed, line)


def _deepest(reached: int) -> tuple[int, int]:
    """The reached position with the most cards removed (lowest index among ties) and that count."""
    lv = levels()
    for removed in range(TABLEAU, -1, -1):
        hit = reached & lv[removed]
        if hit:
            return (hit & -hit).bit_length() - 1, removed
    raise AssertionError("the start position is always reached")


def _trace(pos: Position, phases: list[list[int]], target: int) -> tuple[Action, ...]:
    """A line from the start to ``target``: walk back through the phase sets, a removal or draws at a time."""
    k = next(i for i, firsts in enumerate(phases) if any(m >> target & 1 for m in firsts))
    r = next(q for q in range(RANKS) if phases[k][q] >> target & 1)
    index, start = target, removed_index(pos.heights)
    back: list[Action] = []
    while not (k == 0 and index == start and r == pos.top):
        step = _removal_before(pos, phases[k], index, r)
        if step is not None:
            c, r = step
            back.append(Tap(c + 1))
            index -= STRIDE[c]
            continue
        # reached at the start of phase k by drawing from a position reached in an earlier phase
        j = next(j for j in range(k - 1, -1, -1) if any(m >> index & 1 for m in phases[j]))
        back.extend([Draw()] * (k - j))
        k = j
        r = next(q for q in range(RANKS) if phases[k][q] >> index & 1)
    back.reverse()
    return tuple(back)


def _removal_before(pos: Position, firsts: list[int], index: int, r: int) -> tuple[int, int] | None:
    """A column whose card (of rank ``r``) was removed onto a discard reached in the same phase."""
    heights = unpack(FULL - index)
    for c in range(COLUMNS):
        h = heights[c]
        if h < ROWS and pos.columns[c][h] == r:
            before = index - STRIDE[c]
            for q in range(RANKS):
                if r in pos.succ[q] and firsts[q] >> before & 1:
                    return c, q
    return None
