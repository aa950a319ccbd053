"""The exact solver: the rules page's example story, agreement with a plain search, lines that replay,
budgets, hints, par, and the ``solve``/``hint`` commands."""

from __future__ import annotations

import json
import zlib
from dataclasses import replace

import pytest

from golfrace.cli import main
from golfrace.engine import Draw, Game, GameCode, Rules, Status, Tap, Variants, parse_moves, replay, token
from golfrace.engine.rng import SplitMix64
from golfrace.engine.solver import best_score, hint, par, solve

EXAMPLE = 1  # GO1-?-AAAAAAB, the rules page's example deal
# A game without undo that opens like the page (d 5 2) and reaches its move-35 position (found by search).
TO_MOVE_35 = "d 5 2 d 7 4 d 5 5 6 6 1 6 d d 3 1 7 d 1 4 4 2 5 2 3 d 4 d 7 3 d d 2"


def oracle(game: Game) -> int:
    """The most cards removable from ``game``: a plain memoised search through the engine's own moves."""
    memo: dict[tuple[object, ...], int] = {}

    def go(g: Game) -> int:
        key = (g.heights, g.drawn, g.discard)
        if key not in memo:
            memo[key] = g.removed
            best = g.removed
            for action in g.legal_actions():
                best = max(best, go(g.apply(action)))
                if best == 35:
                    break
            memo[key] = best
        return memo[key]

    return go(game)


def playout(code: GameCode, removed: int, seed: int) -> Game:
    """Random legal moves (removals preferred 3 to 1) until ``removed`` cards are gone or the game ends."""
    rng = SplitMix64(seed)
    game = Game.new(code)
    while game.status is Status.PLAYING and game.removed < removed:
        actions = game.legal_actions()
        taps = [a for a in actions if isinstance(a, Tap)]
        pool = taps if taps and rng.below(4) else actions
        game = game.apply(pool[rng.below(len(pool))])
    return game


def check_line(game: Game, result_line: tuple[object, ...], winnable: bool, best: int) -> None:
    end = game
    for action in result_line:
        end = end.apply(action)  # type: ignore[arg-type]
    if winnable:
        assert end.status is Status.WON
    else:
        assert end.status is Status.STUCK
        assert end.removed == best


# --- the example deal (engine issue, item 9) ---------------------------------------------------------


def test_example_deal_is_won_in_easy_and_lost_in_classic() -> None:
    easy = solve(Game.new(GameCode(Rules.EASY, EXAMPLE)))
    assert easy.winnable is True
    assert replay("GO1-E-AAAAAAB", list(easy.line)).status is Status.WON
    classic = solve(Game.new(GameCode(Rules.CLASSIC, EXAMPLE)))
    assert classic.winnable is False
    assert classic.best_removed < 35
    assert replay("GO1-C-AAAAAAB", list(classic.line)).removed == classic.best_removed


def test_move_35_position_lies_on_a_winning_line() -> None:
    game = replay("GO1-E-AAAAAAB", parse_moves(TO_MOVE_35))
    assert game.moves == 34 and game.undos == 0
    assert [len(col) for col in game.columns] == [2, 1, 2, 1, 1, 2, 2]
    assert game.stock_count == 6
    assert game.discard is not None and game.discard.code == "KC"
    after = game.apply(Tap(3))  # move 35: the Ace of hearts from column 3 onto the King of clubs
    assert after.discard is not None and after.discard.code == "AH"
    result = solve(after)
    assert result.winnable is True
    check_line(after, result.line, True, 35)
    # the same move is refused under Classic rules
    classic = replace(game, deal=replace(game.deal, code=GameCode(Rules.CLASSIC, EXAMPLE)))
    assert Tap(3) not in classic.legal_actions()


# --- agreement with a plain search ---------------------------------------------------------------------


@pytest.mark.parametrize("rules", [Rules.EASY, Rules.CLASSIC])
def test_agrees_with_plain_search_from_midgame_positions(rules: Rules) -> None:
    rng = SplitMix64(77 if rules is Rules.EASY else 78)
    verdicts = set()
    for i in range(30):
        code = GameCode(rules, rng.below(26**7))
        game = playout(code, removed=17 if rules is Rules.CLASSIC else 19, seed=i)
        result = solve(game)
        best = oracle(game)
        assert result.best_removed == best, str(code)
        assert result.winnable is (best == 35)
        verdicts.add(result.winnable)
        check_line(game, result.line, best == 35, best)
    assert verdicts == {True, False}  # the sample has both kinds, so both branches were checked


@pytest.mark.parametrize(
    "variants",
    [
        Variants(strict=True),
        Variants(jokers=1),
        Variants(jokers=2),
        Variants(empty_discard=True),
        Variants(strict=True, jokers=2, empty_discard=True),
    ],
    ids=["strict", "J1", "J2", "D", "SJ2D"],
)
@pytest.mark.parametrize("rules", [Rules.EASY, Rules.CLASSIC])
def test_variants_agree_with_plain_search(rules: Rules, variants: Variants) -> None:
    rng = SplitMix64(zlib.crc32(f"{rules.value} {variants}".encode()))  # the same deals on every run
    for i in range(6):
        code = GameCode(rules, rng.below(26**7), variants)
        game = playout(code, removed=19, seed=i)
        result = solve(game)
        best = oracle(game)
        assert result.best_removed == best, str(code)
        assert result.winnable is (best == 35)
        check_line(game, result.line, best == 35, best)


def test_whole_strict_deals_agree_with_plain_search() -> None:
    for seed in (3, 4, 5):
        game = Game.new(GameCode(Rules.EASY, seed, Variants(strict=True)))
        result = solve(game)
        assert result.best_removed == oracle(game)
        check_line(game, result.line, bool(result.winnable), result.best_removed)


# --- finished games, budgets, hints, par -----------------------------------------------------------


def test_finished_games_need_no_search() -> None:
    won = replay("GO1-E-AAAAAAB", list(solve(Game.new("GO1-E-AAAAAAB")).line))
    assert solve(won) == solve(won) and solve(won).winnable is True and solve(won).line == ()
    lost = replay("GO1-C-AAAAAAB", list(solve(Game.new("GO1-C-AAAAAAB")).line))
    assert lost.status is Status.STUCK
    result = solve(lost)
    assert (result.winnable, result.best_removed, result.states) == (False, lost.removed, 0)
    assert hint(won) is None and hint(lost) is None


def test_a_small_state_budget_gives_unknown_with_a_usable_line() -> None:
    game = Game.new("GO1-C-AAAAAAB")
    result = solve(game, max_states=50)
    assert result.winnable is None and not result.decided
    assert result.states > 50
    reached = replay("GO1-C-AAAAAAB", list(result.line))
    assert reached.removed == result.best_removed


def test_a_time_budget_uses_the_injected_clock() -> None:
    ticks = iter(range(1_000_000))
    result = solve(Game.new("GO1-C-AAAAAAB"), max_seconds=3, clock=lambda: float(next(ticks)))
    assert result.winnable is None
    assert result.seconds > 3
    with pytest.raises(ValueError):
        solve(Game.new("GO1-C-AAAAAAB"), max_seconds=1.0)


def test_hint_is_the_next_move_of_the_line() -> None:
    game = Game.new("GO1-E-AAAAAAB").apply(Draw())
    move = hint(game)
    assert move is not None and move in game.legal_actions()
    assert move == solve(game).line[0]
    # following hints wins the deal
    for _ in range(60):
        if game.status is not Status.PLAYING:
            break
        step = hint(game)
        assert step is not None
        game = game.apply(step)
    assert game.status is Status.WON


def test_par_and_scores() -> None:
    assert par("GO1-E-AAAAAAB") == 350
    lost = solve(Game.new("GO1-C-AAAAAAB"))
    assert par("GO1-C-AAAAAAB") == best_score(lost.best_removed) == lost.par
    assert [best_score(r) for r in (35, 31, 30, 25, 17, 3)] == [350, 270, 250, 150, 0, 0]
    game = replay("GO1-C-AAAAAAB", list(lost.line))
    assert game.score == par("GO1-C-AAAAAAB")


# --- the commands ----------------------------------------------------------------------------------------


def test_solve_command_prints_one_json_line_per_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "GO1-E-AAAAAAB", "go1-c-aaaaaab", "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert list(first) == ["code", "rules", "winnable", "line", "best_removed", "states", "seconds"]
    assert (first["code"], first["rules"], first["winnable"], first["best_removed"]) == (
        "GO1-E-AAAAAAB",
        "easy",
        True,
        35,
    )
    assert replay("GO1-E-AAAAAAB", parse_moves(" ".join(first["line"]))).status is Status.WON
    assert (second["code"], second["rules"], second["winnable"]) == ("GO1-C-AAAAAAB", "classic", False)
    assert isinstance(second["states"], int) and second["seconds"] >= 0


def test_solve_command_from_a_position(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "GO1-E-AAAAAAB", "--moves", TO_MOVE_35 + " 3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    start = replay("GO1-E-AAAAAAB", parse_moves(TO_MOVE_35 + " 3"))
    assert data["winnable"] is True
    end = replay("GO1-E-AAAAAAB", [*parse_moves(TO_MOVE_35 + " 3"), *parse_moves(" ".join(data["line"]))])
    assert end.status is Status.WON
    assert len(data["line"]) <= start.stock_count + 35 - start.removed


def test_hint_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hint", "GO1-E-AAAAAAB", "--moves", "d"]) == 0
    out = capsys.readouterr().out.strip()
    assert out == token(hint(Game.new("GO1-E-AAAAAAB").apply(Draw())))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "GO1-X-AAAAAAB"],
        ["solve", "GO1-E-AAAAAAB", "--moves", "9"],
        ["solve", "GO1-E-AAAAAAB", "--moves", "1"],
        ["hint", "GO1-E-AAAAAAB", "--moves", "zz"],
        ["solve", "GO1-E-AAAAAAB", "--max-states", "-1"],
        ["solve"],
    ],
)
def test_bad_input_exits_2_with_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
