"""The Python client's view of a game (``client_view.GameView``), fed the server's own snapshot and diffs
(``views.public_state``, ``views.diff``) of real engine games, without sockets: it stays equal to the
server's public state, offers exactly the engine's legal moves, and refuses a diff it cannot apply."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golfrace.engine import Draw, Game, GameCode, Rules, Tap, Undo, Variants
from golfrace.engine.codes import SEED_SPACE
from golfrace.wire.views import diff, public_state
from golfrace_client.view import GameView, ViewError

codes = st.builds(
    GameCode,
    st.sampled_from(list(Rules)),
    st.integers(min_value=0, max_value=SEED_SPACE - 1),
    st.builds(Variants, strict=st.booleans(), jokers=st.integers(0, 2), empty_discard=st.booleans()),
)


def _view(game: Game) -> GameView:
    return GameView("g", 0, "player", copy.deepcopy(public_state(game, hidden=False)))


def _legal(game: Game) -> list[dict[str, object]]:
    return [
        {"a": "tap", "col": action.column} if isinstance(action, Tap) else {"a": "draw"}
        for action in game.legal_actions()
    ]


@settings(max_examples=60, deadline=None)
@given(codes, st.integers(min_value=0, max_value=2**32 - 1))
def test_the_view_follows_the_servers_diffs_to_the_end(code: GameCode, walk: int) -> None:
    rng = random.Random(walk)
    game = Game.new(code)
    view = _view(game)
    for v in range(200):
        assert view.v == v and view.state == public_state(game, hidden=False)
        assert view.legal() == _legal(game)
        choices = [*game.legal_actions(), *([Undo()] if game.can_undo else [])]
        if not choices:
            break
        action = rng.choice(choices)
        after = game.apply(action)
        view.apply(diff("g", v, game, after, action, hidden=False))
        game = after
    assert view.status == game.status.value


def test_a_diff_that_does_not_follow_the_held_version_is_refused() -> None:
    game = Game.new(GameCode(Rules.EASY, 12345))
    view = _view(game)
    after = game.apply(Draw())
    later = diff("g", 1, game, after, Draw(), hidden=False)  # 1 → 2 on a view holding 0
    with pytest.raises(ViewError, match="diff 1→2 on version 0"):
        view.apply(later)
    assert view.v == 0 and view.applied == []


def test_a_removed_card_that_is_not_the_columns_free_card_is_refused() -> None:
    game = Game.new(GameCode(Rules.EASY, 12345))
    view = _view(game)
    after = game.apply(Draw())
    change = diff("g", 0, game, after, Draw(), hidden=False)
    column = view.state["columns"][0]
    wrong = next(card for col in view.state["columns"][1:] for card in col if card != column[-1])
    with pytest.raises(ViewError, match="is not the free card"):
        view.apply({**change, "removed": {"col": 1, "card": wrong}})
