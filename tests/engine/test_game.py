"""Playing a game: taps, draws, refusals, end of game, score and undo."""

from __future__ import annotations

from dataclasses import replace

import pytest

from golfrace.engine import (
    UNDO_LIMIT,
    Draw,
    Game,
    Refusal,
    StateError,
    Status,
    Tap,
    TokenError,
    Undo,
    parse_moves,
    parse_token,
    points,
    token,
)
from golfrace.engine.cards import Card
from golfrace.engine.errors import REFUSAL_CODES
from golfrace.engine.game import Step
from golfrace.engine.rules import Rules, fits

EXAMPLE = "GO1-E-AAAAAAB"


def play(code: str, moves: str) -> Game:
    game = Game.new(code)
    for action in parse_moves(moves):
        game = game.apply(action)
    return game


def refusal(game: Game, action: Tap | Draw | Undo) -> Refusal:
    with pytest.raises(Refusal) as info:
        game.apply(action)
    return info.value


# --- tokens ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "action"),
    [("d", Draw()), ("D", Draw()), ("u", Undo()), (" U ", Undo()), ("5", Tap(5)), ("1:4", Tap(1, 4))],
)
def test_tokens(text: str, action: Tap | Draw | Undo) -> None:
    assert parse_token(text) == action
    assert parse_token(token(action)) == action


def test_parse_moves_splits_on_spaces_and_commas() -> None:
    assert parse_moves("d 5,2  u 1:4") == [Draw(), Tap(5), Tap(2), Undo(), Tap(1, 4)]
    assert parse_moves("") == []


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("x", "unknown move"),
        ("", "unknown move"),
        ("1:", "unknown move"),
        (":1", "unknown move"),
        ("1:2:3", "unknown move"),
        ("-1", "unknown move"),
        ("²", "unknown move"),  # a digit to str.isdigit, not to int()
        ("١", "unknown move"),
        ("123", "unknown move"),
        ("dd", "unknown move"),
        ("0", "column must be 1–7"),
        ("8", "column must be 1–7"),
        ("1:0", "row must be 1–5"),
        ("1:6", "row must be 1–5"),
    ],
)
def test_bad_tokens(text: str, fragment: str) -> None:
    with pytest.raises(TokenError, match=fragment) as info:
        parse_token(text)
    assert info.value.code == "bad_move"


# --- which card goes on which ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("card", "discard", "easy", "classic"),
    [
        ("9C", "8S", True, True),
        ("7H", "8S", True, True),
        ("8H", "8S", False, False),  # same rank
        ("TD", "8S", False, False),
        ("AH", "KC", True, False),  # King and Ace are linked only in easy
        ("KH", "AC", True, False),
        ("QH", "KC", True, True),  # a Queen on a King in both
        ("KH", "QC", True, True),
        ("2H", "AC", True, True),
        ("AH", "2C", True, True),
        ("QH", "AC", False, False),  # the link is K-A only: Q-K-A-2 is a chain, Q-A is not
        ("2H", "KC", False, False),
    ],
)
def test_fits(card: str, discard: str, easy: bool, classic: bool) -> None:
    c, d = Card.parse(card), Card.parse(discard)
    assert fits(c, d, Rules.EASY) is easy
    assert fits(c, d, Rules.CLASSIC) is classic


# --- actions -----------------------------------------------------------------------------------------------
def test_tap_by_row_of_the_free_card_is_a_tap() -> None:
    after_draw = Game.new(EXAMPLE).apply(Draw())
    assert after_draw.apply(Tap(5, 5)) == after_draw.apply(Tap(5))


def test_draw_is_allowed_even_when_a_removal_is_possible_and_scores_nothing() -> None:
    game = play(EXAMPLE, "d")
    assert game.playable_columns() == [4]
    drawn = game.apply(Draw())
    assert (drawn.score, drawn.moves, drawn.stock_count) == (0, 2, 14)
    assert drawn.discard == Card.parse("6D")


def test_the_stock_is_never_recycled() -> None:
    game = play(EXAMPLE, "d " * 16)
    assert game.stock_count == 0 and game.drawn == 16 and game.discard == Card.parse("QC")
    assert game.status is Status.PLAYING  # JS still fits the QC
    assert refusal(game, Draw()).code == "stock_empty"
    assert game.legal_actions() == [Tap(3)]


def test_every_refusal_code_is_reachable_and_changes_nothing() -> None:
    seen: set[str] = set()
    start = Game.new(EXAMPLE)
    cases: list[tuple[Game, Tap | Draw | Undo, str]] = [
        (start, Tap(1), "not_adjacent"),
        (start, Tap(1, 4), "blocked"),
        (start, Undo(), "nothing_to_undo"),
    ]
    # an empty column, a removed row, an empty stock with a card still playable (not stuck)
    line = "d 5 2 d 7 4 d 5 5 6 6 1 6 d d 3 1 7 d 1 4 4 2 5 2 3 d 4 d 7 3 d d 2 3 2"
    emptied = play(EXAMPLE, line)
    assert emptied.heights[1] == 0
    cases += [(emptied, Tap(2), "empty_column"), (emptied, Tap(3, 2), "card_gone")]
    empty_stock = play(EXAMPLE, "d " * 16)
    assert empty_stock.stock_count == 0 and empty_stock.status is Status.PLAYING
    cases.append((empty_stock, Draw(), "stock_empty"))
    won = play(EXAMPLE, line + " 4 6 1 1 7 d 3 5 6 d d 7")
    cases += [(won, Draw(), "game_over"), (won, Tap(1), "game_over"), (won, Undo(), "game_over")]
    strict = play("GO1-E-AAAAAAB-S", "d")
    cases.append((strict, Draw(), "must_remove"))
    ranked = Game.new(EXAMPLE, draws_final=True).apply(Draw())
    cases.append((ranked, Undo(), "draw_final"))
    for game, action, code in cases:
        before = game.to_state()
        r = refusal(game, action)
        assert r.code == code, (action, code)
        assert game.to_state() == before
        seen.add(code)
    assert seen == set(REFUSAL_CODES)


def test_refusal_params() -> None:
    game = Game.new(EXAMPLE)
    assert refusal(game, Tap(1, 4)).params == {"column": 1, "row": 4}
    assert "not_adjacent" in str(refusal(game, Tap(1)))


# --- end of game and score ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("removed", "stuck", "score"),
    [
        (0, False, 0),
        (1, False, 10),
        (35, False, 350),
        (31, True, 270),
        (30, True, 250),
        (25, True, 150),
        (18, True, 10),
        (17, True, 0),
        (5, True, 0),  # never below zero
        (0, True, 0),
    ],
)
def test_points(removed: int, stuck: bool, score: int) -> None:
    assert points(removed, stuck) == score


# Stuck games reached by a simple policy (tap the leftmost playable column, else draw): real play, pinned.
STUCK_GAMES = [
    (
        31,
        270,
        "GO1-E-AAAAAAP",
        "3 2 d 4 d 1 3 4 d 7 2 1 d 5 7 4 d d 4 d 1 5 2 5 2 d 2 1 4 d 6 1 3 6 d 3 d d 5 d 5 3 7 d d d 6",
    ),
    (
        30,
        250,
        "GO1-E-AAAAAAC",
        "5 2 2 d 2 d 4 1 4 5 4 1 d 3 1 6 1 d 1 7 2 3 2 d d 3 d 7 d d 5 d 3 4 5 7 6 d d d 3 4 5 d d d",
    ),
    (
        25,
        150,
        "GO1-E-AAAAAAE",
        "5 d d d 3 3 4 d 6 2 d d d d 2 d 5 3 d 1 1 2 5 4 3 7 4 d 1 2 6 d d 5 3 d d d 1 1 2",
    ),
    (17, 0, "GO1-E-AAAAALR", "5 d 5 d 3 2 2 d d 1 d 1 4 d d 1 d 2 2 2 d d d 4 d d d d 3 6 1 1 d"),
]


@pytest.mark.parametrize(
    ("removed", "score", "code", "moves"), STUCK_GAMES, ids=[str(g[0]) for g in STUCK_GAMES]
)
def test_stuck_scores(removed: int, score: int, code: str, moves: str) -> None:
    game = play(code, moves)
    assert game.status is Status.STUCK
    assert game.stock_count == 0 and game.playable_columns() == [] and game.legal_actions() == []
    assert (game.removed, game.score) == (removed, score)
    before = game.apply(Undo())  # the last action was the final draw or removal that got it stuck
    assert before.status is Status.PLAYING
    assert before.score == 10 * before.removed  # the penalty is gone


def policy_line(code: str) -> str:
    game, moves = Game.new(code), []
    while game.status is Status.PLAYING:
        columns = game.playable_columns()
        action: Tap | Draw = Tap(columns[0] + 1) if columns else Draw()
        moves.append(token(action))
        game = game.apply(action)
    return " ".join(moves)


@pytest.mark.parametrize(
    ("code", "moves"), [(g[2], g[3]) for g in STUCK_GAMES], ids=[g[2] for g in STUCK_GAMES]
)
def test_stuck_lines_are_the_simple_policy(code: str, moves: str) -> None:
    assert policy_line(code) == moves


def test_undo_after_stuck() -> None:
    code, moves = STUCK_GAMES[0][2], STUCK_GAMES[0][3]
    stuck = play(code, moves)
    assert refusal(stuck, Tap(1)).code == "game_over"
    assert refusal(stuck, Draw()).code == "game_over"
    undone = stuck.apply(Undo())
    assert undone.status is Status.PLAYING
    assert undone.score == 300  # 30 removed before the last removal, and no penalty any more
    assert undone.moves == stuck.moves  # the move counter never decreases
    assert undone.undos == 1
    assert undone.legal_actions()  # playable again
    before = play(code, " ".join(moves.split()[:-1]))
    assert (undone.columns, undone.discard, undone.stock_count) == (
        before.columns,
        before.discard,
        before.stock_count,
    )
    # and playing on works: the same last move gets it stuck again, with the same penalty
    again = undone.apply(parse_token(moves.split()[-1]))
    assert again.status is Status.STUCK and again.score == 270 and again.moves == stuck.moves + 1


def test_undo_restores_the_position_and_keeps_the_move_count() -> None:
    game = play(EXAMPLE, "d 5 2")
    once = game.apply(Undo())
    assert once.discard == Card.parse("9C") and once.score == 10 and once.moves == 3
    twice = once.apply(Undo()).apply(Undo())
    assert twice.columns == Game.new(EXAMPLE).columns and twice.discard == Card.parse("AC")
    assert (twice.stock_count, twice.score, twice.moves, twice.undos) == (16, 0, 3, 3)
    assert refusal(twice, Undo()).code == "nothing_to_undo"
    again = twice.apply(Draw())
    assert again.discard == Card.parse("8S") and again.moves == 4


def test_history_is_removals_plus_draws() -> None:
    # One deal allows at most 35 removals + 16 draws, so a real game never holds more than 51 undoable
    # actions; the 100-action limit is a bound on storage, checked below on a synthetic history.
    game = play(EXAMPLE, "d 5 2 d u d")
    assert len(game.history) == game.removed + game.drawn == 4


def test_undo_limit_keeps_the_last_100_actions() -> None:
    assert UNDO_LIMIT == 100
    game = play(EXAMPLE, "d")
    # a history of 100 entries (more than a real deal can produce): the next action drops the oldest
    padded = replace(game, history=(Step(None, Card.parse("2H")),) + (game.history[0],) * (UNDO_LIMIT - 1))
    after = padded.apply(Tap(5))
    assert len(after.history) == UNDO_LIMIT
    assert after.history[0] == game.history[0] and after.history[-1] == Step(4, Card.parse("8S"))
    undone = after
    for _ in range(UNDO_LIMIT):
        undone = replace(undone, drawn=max(undone.drawn, 1)).apply(Undo())
    assert refusal(undone, Undo()).code == "nothing_to_undo"
    assert undone.undos == UNDO_LIMIT and undone.moves == after.moves


# --- stored games ------------------------------------------------------------------------------------------
def test_state_round_trip() -> None:
    game = play(EXAMPLE, "d 5 2 u d")
    state = game.to_state()
    assert list(state) == ["code", "heights", "drawn", "discard", "moves", "undos", "history"]
    assert Game.from_state(state) == game
    assert Game.from_state(Game.new("GO1-E-AAAAAAB-D").to_state()).discard is None


@pytest.mark.parametrize(
    "change",
    [
        {"code": "nonsense"},
        {"heights": [5, 5, 5]},
        {"heights": [6, 5, 5, 5, 5, 5, 5]},
        {"heights": ["5", 5, 5, 5, 5, 5, 5]},
        {"drawn": 17},
        {"drawn": True},
        {"discard": "ZZ"},
        {"moves": -1},
        {"history": [[9, "AC"]]},
        {"history": [[-1, "AC"]]},  # a draw in the history but nothing drawn
        {"history": [[0, "AC"]]},  # a removal from a full column
        {"history": "x"},
    ],
)
def test_bad_states_are_refused(change: dict[str, object]) -> None:
    state = Game.new(EXAMPLE).to_state() | change
    with pytest.raises(StateError) as info:
        Game.from_state(state)
    assert info.value.code == "bad_state"


def test_missing_key_is_a_state_error() -> None:
    state = Game.new(EXAMPLE).to_state()
    del state["drawn"]
    with pytest.raises(StateError):
        Game.from_state(state)
