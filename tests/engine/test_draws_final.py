"""Ranked play: a draw is final (``Game.new(code, draws_final=True)``), a removal may still be undone; casual
play keeps the full undo. The flag survives the game's stored state (``to_state``/``from_state`` and the
store's packed state)."""

from __future__ import annotations

import pytest

from golfrace.engine import Game, Refusal, StateError, parse_moves
from golfrace.store.game_codec import decode_state, encode_state

EXAMPLE = "GO1-E-AAAAAAB"  # the seeds' deal: 8S is drawn first; then 9C (column 5) and 8C (column 2) go


def play(moves: str, draws_final: bool) -> Game:
    game = Game.new(EXAMPLE, draws_final=draws_final)
    for action in parse_moves(moves):
        game = game.apply(action)
    return game


# (moves, draws_final, refused code or None, then the position after the last move as (drawn, removed))
CASES = [
    ("d u", False, None, (0, 0)),  # casual: the seeds' undo takes a draw back
    ("d u", True, "draw_final", (1, 0)),
    ("d 5 u", True, None, (1, 0)),  # a removal is undone, the draw before it stays
    ("d 5 u u", True, "draw_final", (1, 0)),
    ("d 5 2 u u", True, None, (1, 0)),
    ("d 5 2 u u u", True, "draw_final", (1, 0)),
    ("d 5 2 d u", True, "draw_final", (2, 2)),
    ("d 5 2 d u", False, None, (1, 2)),
    ("u", True, "nothing_to_undo", (0, 0)),  # nothing to take back is still that
]


@pytest.mark.parametrize(("moves", "final", "refused", "after"), CASES)
def test_undo_of_a_draw_is_refused_only_when_draws_are_final(
    moves: str, final: bool, refused: str | None, after: tuple[int, int]
) -> None:
    *before, last = parse_moves(moves)
    game = Game.new(EXAMPLE, draws_final=final)
    for action in before:
        game = game.apply(action)
    if refused is None:
        game = game.apply(last)
    else:
        with pytest.raises(Refusal) as info:
            game.apply(last)
        assert info.value.code == refused
    assert (game.drawn, game.removed) == after
    assert game.draws_final is final
    assert game.can_undo is (bool(game.history) and not (final and game.history[-1].column is None))


def test_undo_peek_no_longer_shows_the_stock() -> None:
    """The issue's undo-peek (draw 15 times, undo 15 times) stops at the first undo: every drawn card stays
    drawn, so what was seen of the stock is what was played."""
    game = play("d " * 15, draws_final=True)
    with pytest.raises(Refusal):
        game.apply(parse_moves("u")[0])
    assert game.drawn == 15 and game.stock_count == 1


@pytest.mark.parametrize("final", [False, True])
def test_the_flag_survives_storage(final: bool) -> None:
    game = play("d 5", draws_final=final)
    assert Game.from_state(game.to_state()) == game
    assert Game.from_state(game.to_state()).draws_final is final
    stored = decode_state(encode_state(game, ""))
    assert stored == game and stored.draws_final is final


def test_casual_states_do_not_carry_the_flag() -> None:
    """A casual game's state is what it was before the flag existed, so older stored games read as casual."""
    assert "draws_final" not in play("d", draws_final=False).to_state()
    assert play("d", draws_final=True).to_state()["draws_final"] is True


def test_a_malformed_flag_is_a_state_error() -> None:
    state = play("d", draws_final=True).to_state()
    state["draws_final"] = "yes"
    with pytest.raises(StateError):
        Game.from_state(state)


@pytest.mark.parametrize(
    ("moves", "final", "can"),
    [
        ("", True, False),
        ("d", True, False),
        ("d 5", True, True),
        ("d", False, True),
        ("d 5 2 d", True, False),
    ],
)
def test_can_undo_says_what_undo_would_do(moves: str, final: bool, can: bool) -> None:
    assert play(moves, final).can_undo is can
