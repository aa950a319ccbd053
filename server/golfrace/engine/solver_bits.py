"""Exact search where a draw is always allowed (all rules but ``strict``): bit-parallel, phase by phase.

Two facts make it fast:

- **Dominance.** With the same heights and the same discard rank, having drawn fewer cards is never worse:
  the player can always draw several cards in a row to catch up. So a pair (heights, discard rank) needs
  exploring only once, at the first stock *phase* (number of cards drawn) where it is reached.
- **Bit parallelism.** For each discard rank, the set of heights reached is one Python integer of
  6**7 = 279,936 bits. Removing the free card of column ``c`` from a whole set is one shift by ``6**c``;
  masking with "the card just removed had rank q" keeps the members that lead to discard rank ``q``.

Phase ``k`` starts from every heights reached so far (the player may draw from any of them) with the
``k``-th stock card on the discard, and closes the sets under removals, round by round (a round lengthens
every run of removals by one card). The deal is won when the empty tableau (index 0) is reached; otherwise,
once the stock is exhausted, the most cards removable is read from the reached heights with the smallest sum.
The sets first reached in each phase are kept, so a line to any reached heights can be traced back.
"""

from __future__ import annotations

from dataclasses import dataclass

from .actions import Action, Draw, Tap
from .deal import COLUMNS, ROWS, TABLEAU
from .solver_space import RANKS, STRIDE, Meter, Position, levels, pack, slabs, unpack


@dataclass(frozen=True, slots=True)
class Outcome:
    """``complete`` is False when the budget ran out; ``best`` is then a lower bound."""

    complete: bool
    won: bool
    best: int
    line: tuple[Action, ...]


def search(pos: Position, meter: Meter) -> Outcome:
    slab = slabs()
    # free[c]: (rank q, heights whose column c shows a free card of rank q) for each rank in column c
    free: list[list[tuple[int, int]]] = []
    for c, col in enumerate(pos.columns):
        masks: dict[int, int] = {}
        for v, rank in enumerate(col):
            masks[rank] = masks.get(rank, 0) | slab[c][v + 1]
        free.append(sorted(masks.items()))
    # onto[q]: the discard ranks a card of rank q may be removed onto
    onto = [tuple(r for r in range(RANKS) if q in pos.succ[r]) for q in range(RANKS)]
    start = pack(pos.heights)
    explored = [0] * RANKS  # per discard rank: heights explored in any phase so far
    reached = 0  # heights reached in any phase, any discard
    phases: list[list[int]] = []  # phases[k - drawn][r]: heights first reached in phase k with discard r
    phase, top, seeds = pos.drawn, pos.top, 1 << start
    complete = True
    while True:
        frontier = [0] * RANKS
        fresh = seeds ^ (seeds & explored[top])
        explored[top] |= fresh
        frontier[top] = fresh
        firsts = [0] * RANKS
        firsts[top] = fresh
        meter.states += fresh.bit_count()
        reached |= fresh
        active = [top] if fresh else []
        while active and not reached & 1:
            nxt = [0] * RANKS
            able = [0] * RANKS  # able[q]: frontier members whose discard takes a card of rank q
            for q in range(RANKS):
                for r in onto[q]:
                    able[q] |= frontier[r]
            for c in range(COLUMNS):
                stride = STRIDE[c]
                for q, mask in free[c]:
                    w = able[q] & mask
                    if w:
                        w >>= stride
                        w ^= w & explored[q]
                        if w:
                            explored[q] |= w
                            nxt[q] |= w
            frontier = nxt
            active = [q for q in range(RANKS) if nxt[q]]
            for q in active:
                firsts[q] |= nxt[q]
                reached |= nxt[q]
                meter.states += nxt[q].bit_count()
            if meter.exhausted():
                complete = False
                break
        phases.append(firsts)
        if not complete or reached & 1 or phase >= len(pos.stock):
            break
        seeds, top, phase = reached, pos.stock[phase], phase + 1
    won = bool(reached & 1)
    target, removed = _deepest(reached)
    line = _trace(pos, phases, target)
    if not won and complete:
        # draw out the stock: the game then ends stuck (any removal would beat the maximum)
        line += (Draw(),) * (len(pos.stock) - pos.drawn - line.count(Draw()))
    return Outcome(complete or won, won, removed, line)


def _deepest(reached: int) -> tuple[int, int]:
    """The reached heights with the fewest cards left (lowest index among ties) and the cards removed."""
    for left, mask in enumerate(levels()):
        hit = reached & mask
        if hit:
            return (hit & -hit).bit_length() - 1, TABLEAU - left
    raise AssertionError("the start position is always reached")


def _trace(pos: Position, phases: list[list[int]], target: int) -> tuple[Action, ...]:
    """A line from the start to ``target``: walk back through the phase sets, a removal or draws at a time."""
    k = next(i for i, firsts in enumerate(phases) if any(m >> target & 1 for m in firsts))
    r = next(q for q in range(RANKS) if phases[k][q] >> target & 1)
    index, start = target, pack(pos.heights)
    back: list[Action] = []
    while not (k == 0 and index == start and r == pos.top):
        heights = unpack(index)
        step = _removal_before(pos, phases[k], index, heights, r)
        if step is not None:
            c, r = step
            back.append(Tap(c + 1))
            index += STRIDE[c]
            continue
        # reached at the start of phase k by drawing from heights reached in an earlier phase
        j = next(j for j in range(k - 1, -1, -1) if any(m >> index & 1 for m in phases[j]))
        back.extend([Draw()] * (k - j))
        k = j
        r = next(q for q in range(RANKS) if phases[k][q] >> index & 1)
    back.reverse()
    return tuple(back)


def _removal_before(
    pos: Position, firsts: list[int], index: int, heights: tuple[int, ...], r: int
) -> tuple[int, int] | None:
    """A column whose card (of rank ``r``) was removed onto a discard reached in the same phase."""
    for c in range(COLUMNS):
        h = heights[c]
        if h < ROWS and pos.columns[c][h] == r:
            before = index + STRIDE[c]
            for q in range(RANKS):
                if r in pos.succ[q] and firsts[q] >> before & 1:
                    return c, q
    return None
