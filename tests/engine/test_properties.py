"""Properties over random codes and random play (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from golfrace.engine import Draw, Game, GameCode, Refusal, Rules, Status, Tap, Undo, Variants, deal
from golfrace.engine.cards import standard_deck
from golfrace.engine.codes import SEED_SPACE
from golfrace.engine.deal import BASE_ORDER
from golfrace.engine.rng import shuffled

seeds = st.integers(min_value=0, max_value=SEED_SPACE - 1)
rules = st.sampled_from(list(Rules))
variants = st.builds(Variants, strict=st.booleans(), jokers=st.integers(0, 2), empty_discard=st.booleans())
codes = st.builds(GameCode, rules, seeds, variants)
actions = st.one_of(
    st.builds(Tap, st.integers(1, 7), st.one_of(st.none(), st.integers(1, 5))),
    st.just(Draw()),
    st.just(Undo()),
)


@given(seeds, rules)
def test_a_plain_code_deals_52_distinct_cards(seed: int, rule: Rules) -> None:
    d = deal(GameCode(rule, seed))
    cards = [c for col in d.columns for c in col] + [d.discard] + list(d.stock)
    assert sorted(c for c in cards if c is not None) == sorted(standard_deck())
    assert [len(col) for col in d.columns] == [5] * 7 and len(d.stock) == 16


@given(codes)
def test_dealing_is_deterministic_and_independent_of_the_rules(code: GameCode) -> None:
    a, b = deal(code), deal(GameCode.parse(str(code)))
    assert (a.columns, a.discard, a.stock) == (b.columns, b.discard, b.stock)
    other = deal(code.with_rules(Rules.CLASSIC if code.rules is Rules.EASY else Rules.EASY))
    assert (a.columns, a.discard, a.stock) == (other.columns, other.discard, other.stock)


@given(codes)
def test_code_text_round_trip(code: GameCode) -> None:
    assert GameCode.parse(str(code)) == code
    assert GameCode.parse(f"  {str(code).lower()} ") == code


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_shuffle_is_a_permutation(seed: int) -> None:
    assert sorted(shuffled(BASE_ORDER, seed)) == sorted(BASE_ORDER)


@settings(max_examples=60, deadline=None)
@given(codes, st.lists(actions, max_size=80))
def test_random_play_keeps_the_invariants(code: GameCode, moves: list[Tap | Draw | Undo]) -> None:
    game = Game.new(code)
    for action in moves:
        before = game.to_state()
        try:
            after = game.apply(action)
        except Refusal:
            assert game.to_state() == before  # a refusal changes nothing
            continue
        assert 0 <= after.score <= 350
        assert after.moves == game.moves + (0 if isinstance(action, Undo) else 1)
        assert after.removed + sum(after.heights) == 35
        assert Game.from_state(after.to_state()) == after  # storage round trip
        if not isinstance(action, Undo):
            # undo inverts an action exactly: same position and score, only the counters move on
            back = after.apply(Undo())
            assert (back.heights, back.drawn, back.discard, back.history) == (
                game.heights,
                game.drawn,
                game.discard,
                game.history,
            )
            assert back.score == game.score and back.status is game.status
            assert back.moves == after.moves and back.undos == game.undos + 1
        if after.status is Status.WON:
            assert after.score == 350 and after.legal_actions() == []
        game = after


@settings(max_examples=40, deadline=None)
@given(codes, st.randoms(use_true_random=False))
def test_legal_actions_are_accepted_and_games_end(code: GameCode, rnd: object) -> None:
    import random

    assert isinstance(rnd, random.Random)
    game = Game.new(code)
    while game.status is Status.PLAYING:
        legal = game.legal_actions()
        assert legal  # a playing game always has something to do
        game = game.apply(rnd.choice(legal))
        assert 0 <= game.score <= 350
    assert game.legal_actions() == []
    if game.status is Status.STUCK:
        assert game.score == max(0, 10 * game.removed - 10 * (35 - game.removed))
    else:
        assert game.score == 350
