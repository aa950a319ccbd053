"""Choosing under uncertainty: what a player can know, sampled stocks, and moves that never depend on the
hidden stock order."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from golfrace.engine import Draw, Game, Tap, Variants, parse_moves
from golfrace.engine.codes import GameCode
from golfrace.engine.errors import StateError
from golfrace.engine.solver import solve
from golfrace.strategy import STRENGTHS, Visible, choose, evaluate, move_delay_ms, sample_stocks, strength
from golfrace.strategy.evaluate import best_removed
from golfrace.wire.views import public_state

CODES = ["GO1-E-AAAAAAB", "GO1-C-AAAAACB", "GO1-E-AAAABDB"]
OPENING = "d 5 2 d 7 4"  # the rules page's example deal opens like this


def after(code: str, moves: str = "", variants: Variants | None = None) -> Game:
    parsed = GameCode.parse(code)
    if variants is not None:
        parsed = replace(parsed, variants=variants)
    game = Game.new(parsed)
    for action in parse_moves(moves):
        game = game.apply(action)
    return game


def with_unseen_permuted(game: Game, rng: random.Random) -> Game:
    """The same game with the undrawn part of the stock in another order."""
    stock = list(game.deal.stock)
    rest = stock[game.drawn :]
    rng.shuffle(rest)
    return replace(game, deal=replace(game.deal, stock=tuple(stock[: game.drawn] + rest)))


def positions() -> list[Game]:
    out = [after(code) for code in CODES]
    out.append(after("GO1-E-AAAAAAB", OPENING))
    out.append(after("GO1-C-AAAAAAB", "d d d"))
    return out


@pytest.mark.parametrize("game", positions(), ids=lambda g: f"{g.code}/{g.moves}")
def test_visible_from_game_is_the_same_for_every_order_of_the_unseen_stock(game: Game) -> None:
    rng = random.Random(5)
    visible = Visible.from_game(game)
    for _ in range(5):
        other = with_unseen_permuted(game, rng)
        assert other.deal.stock != game.deal.stock or game.stock_count < 2
        assert Visible.from_game(other) == visible
    assert len(visible.unseen) == game.stock_count
    assert set(visible.unseen) == set(game.deal.stock[game.drawn :])
    assert [a for a in visible.legal()] == game.legal_actions()


@pytest.mark.parametrize("level", sorted(STRENGTHS))
@pytest.mark.parametrize("game", positions()[:4], ids=lambda g: f"{g.code}/{g.moves}")
def test_the_choice_never_depends_on_the_hidden_stock_order(game: Game, level: int) -> None:
    shuffler = random.Random(level)
    games = [game] + [with_unseen_permuted(game, shuffler) for _ in range(3)]
    # the permutations must differ where it matters: the solver's own (stock-knowing) hint changes
    assert len({solve(g).line[:12] for g in games}) > 1
    choices = set()
    states = set()
    for g in games:
        rng = random.Random(99)
        choices.add(choose(Visible.from_game(g), strength(level), rng))
        states.add(rng.random())  # the rng was used the same way too
    assert len(choices) == 1
    assert len(states) == 1


def test_a_whole_game_played_by_a_bot_is_the_same_whatever_the_unseen_order_until_a_draw_shows_a_card() -> (
    None
):
    game = after("GO1-E-AAAABDB")
    other = with_unseen_permuted(game, random.Random(3))
    a, b = random.Random(1), random.Random(1)
    while game.status.value == "playing":
        x = choose(Visible.from_game(game), strength(3), a)
        y = choose(Visible.from_game(other), strength(3), b)
        assert x == y
        if isinstance(x, Draw):
            break  # from here the two games show different cards
        game, other = game.apply(x), other.apply(y)


def test_from_state_with_the_cards_seen_equals_from_game() -> None:
    game = after("GO1-E-AAAAAAB", OPENING)
    state = public_state(game, hidden=True)
    seen = [c.code for col in game.deal.columns for c in col] + [game.deal.discard.code]  # type: ignore[union-attr]
    seen += [c.code for c in game.deal.stock[: game.drawn]]
    assert Visible.from_state(state, seen) == Visible.from_game(game)
    forgetful = Visible.from_state(state)
    assert forgetful == Visible.from_game(game).forgetful()
    assert len(forgetful.unseen) > game.stock_count  # without the removed cards, more candidates


@pytest.mark.parametrize(
    "state",
    [
        {},
        {"rules": "easy", "columns": [["ZZ"]], "discard": None, "stock_count": 1},
        {"rules": "easy", "columns": [], "discard": None, "stock_count": -1},
        {"rules": "easy", "columns": [], "discard": None, "stock_count": 60},
        {"rules": "hard", "columns": [], "discard": None, "stock_count": 1},
    ],
)
def test_from_state_refuses_what_is_not_a_public_state(state: dict[str, object]) -> None:
    with pytest.raises(StateError):
        Visible.from_state(state)


def test_sampled_stocks_are_orders_of_the_unseen_cards() -> None:
    visible = Visible.from_game(after("GO1-C-AAAAAAB", "d d d"))
    samples = sample_stocks(visible, 20, random.Random(4))
    assert all(sorted(s) == sorted(visible.unseen) for s in samples)
    assert len(set(samples)) == 20
    forgetful = visible.forgetful()
    few = sample_stocks(forgetful, 5, random.Random(4))
    assert all(len(s) == visible.stock_count and set(s) <= set(forgetful.unseen) for s in few)


def test_the_value_under_the_true_stock_is_the_solvers() -> None:
    game = after("GO1-E-AAAAAAB", OPENING)
    visible = Visible.from_game(game)
    true = game.deal.stock[game.drawn :]
    for action in game.legal_actions():
        assert best_removed(visible, action, true) == solve(game.apply(action)).best_removed  # type: ignore[arg-type]
    values = evaluate(visible, [true])
    assert [v.action for v in values] == game.legal_actions()
    assert max(v.score for v in values) == solve(game).par


def test_strict_positions_are_valued_by_the_depth_first_search() -> None:
    game = after("GO1-E-AAAAAAB", "", Variants(strict=True))
    visible = Visible.from_game(game)
    true = game.deal.stock[game.drawn :]
    for action in game.legal_actions():
        assert best_removed(visible, action, true) == solve(game.apply(action)).best_removed  # type: ignore[arg-type]


def test_strengths_are_checked_and_a_finished_table_has_no_move() -> None:
    with pytest.raises(ValueError, match="1–5"):
        strength(0)
    visible = Visible.from_game(after("GO1-E-AAAAAAB"))
    done = replace(visible, columns=((),) * 7)
    assert done.legal() == []
    with pytest.raises(ValueError, match="game is over"):
        choose(done, strength(3), random.Random(1))


def test_a_stronger_bot_scores_more_over_a_few_deals() -> None:
    totals = {}
    for level in (1, 4):
        rng = random.Random(2)
        total = 0
        for code in ["GO1-E-AAAAAAB", "GO1-E-AAAABDB", "GO1-E-AAAAACB", "GO1-E-AAAAADB"]:
            game = after(code)
            while game.status.value == "playing":
                game = game.apply(choose(Visible.from_game(game), strength(level), rng))
            total += game.score
        totals[level] = total
    assert totals[4] > totals[1]


def test_the_human_pace() -> None:
    rng = random.Random(8)
    plain = sorted(move_delay_ms(rng) for _ in range(2000))
    first = sorted(move_delay_ms(rng, first=True) for _ in range(2000))
    many = sorted(move_delay_ms(rng, choices=4) for _ in range(2000))
    assert 600 < plain[1000] < 800
    assert first[1000] > 2 * plain[1000]
    assert many[1000] > plain[1000] + 250
    assert plain[0] >= 260 and plain[100] > 300  # the fastest 5 % stay above the review's floor
    assert move_delay_ms(random.Random(1), tempo=2.0) > move_delay_ms(random.Random(1))
    with pytest.raises(ValueError):
        move_delay_ms(rng, tempo=0)
    assert Tap(1) != Draw()
