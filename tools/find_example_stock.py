"""How the order of the example deal's stock was chosen (run once; the result is BASE_ORDER in deal.py).

The rules page fixes the example deal's tableau, its discard (AC) and its first stock card (8S). This script
tries random orders for the other 15 stock cards until the page's whole story holds: in Easy, a game without
undo reaches the page's move-35 position (24 cards removed, 10 draws, KC on the discard), takes AH onto KC
and goes on to win; under Classic rules the deal cannot be won. It then prints the base order that makes
seed 1 deal exactly that.
"""

from __future__ import annotations

import random
import sys
from functools import cache

sys.path.insert(0, "server")

from golfrace.engine.cards import Card, parse_cards, standard_deck
from golfrace.engine.rng import shuffled

TABLEAU = [
    parse_cards("6C 5S QS TS 6H"),
    parse_cards("2S KC 4S 2C 8C"),
    parse_cards("TC AH 2D 5D JS"),
    parse_cards("3D QH AS KD 4C"),
    parse_cards("JH 3C 7D 8H 9C"),
    parse_cards("TH 4H 7H 7C 8D"),
    parse_cards("3S 7S 3H 9S 5C"),
]
DISCARD = Card.parse("AC")
FIRST = Card.parse("8S")
MOVE35_HEIGHTS = (2, 1, 2, 1, 1, 2, 2)


def fits(a: int, b: int, easy: bool) -> bool:
    return abs(a - b) == 1 or (easy and abs(a - b) == 12)


def winnable(stock: list[int], heights: tuple[int, ...], drawn: int, discard: int, easy: bool) -> bool:
    ranks = [[c.rank for c in col] for col in TABLEAU]

    @cache
    def go(h: tuple[int, ...], d: int, top: int) -> bool:
        if not any(h):
            return True
        for c in range(7):
            if h[c] and fits(ranks[c][h[c] - 1], top, easy):
                nh = (*h[:c], h[c] - 1, *h[c + 1 :])
                if go(nh, d, ranks[c][h[c] - 1]):
                    return True
        return d < len(stock) and go(h, d + 1, stock[d])

    return go(heights, drawn, discard)


def reaches_move35(stock: list[int]) -> bool:
    ranks = [[c.rank for c in col] for col in TABLEAU]
    kc = 13

    @cache
    def go(h: tuple[int, ...], d: int, top: int, last_col: int) -> bool:
        if h == MOVE35_HEIGHTS and d == 10:
            return top == kc and last_col == 1
        for c in range(7):
            if h[c] > MOVE35_HEIGHTS[c] and fits(ranks[c][h[c] - 1], top, True):
                nh = (*h[:c], h[c] - 1, *h[c + 1 :])
                if go(nh, d, ranks[c][h[c] - 1], c):
                    return True
        return d < 10 and go(h, d + 1, stock[d], -1)

    # the rules page's opening: draw 8S, then 9C from column 5 and 8C from column 2
    return go((5, 4, 5, 5, 4, 5, 5), 1, 8, 1)


def main() -> None:
    used = {c for col in TABLEAU for c in col} | {DISCARD, FIRST}
    rest = [c for c in standard_deck() if c not in used]
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 2026)
    for attempt in range(1, 200_000):
        rng.shuffle(rest)
        stock = [FIRST, *rest]
        ranks = [c.rank for c in stock]
        if not reaches_move35(ranks):
            continue
        # after move 35 (AH onto KC): heights with column 3 one shorter, 10 drawn, AH on the discard
        after = (2, 1, 1, 1, 1, 2, 2)
        if not winnable(ranks, after, 10, 1, True):
            continue
        if winnable(ranks, (5,) * 7, 0, DISCARD.rank, False):
            continue
        target = [c for col in TABLEAU for c in col] + [DISCARD] + stock
        perm = shuffled(list(range(52)), 1)
        base: list[Card | None] = [None] * 52
        for i, p in enumerate(perm):
            base[p] = target[i]
        print(f"found after {attempt} tries; stock:", " ".join(c.code for c in stock))
        print("BASE_ORDER:", " ".join(c.code for c in base if c is not None))
        return
    print("nothing found")


if __name__ == "__main__":
    main()
