"""The analysis of a game, against the solver, on the seeds' worked examples: the Easy win (the rules page's
example deal under Easy rules, won through the seeds' move 35) and the Classic loss (the same deal under
Classic rules, which no line wins)."""

from __future__ import annotations

import time

import pytest

from golfrace.analysis.core import INACCURACY, MISTAKE, analyse
from golfrace.engine import Draw, Game, GameCode, Status, parse_moves, replay
from golfrace.engine.errors import GolfError
from golfrace.engine.solver import solve

from ..engine.test_seeds import MOVE_35, TO_MOVE_35, TO_THE_WIN

EASY, CLASSIC = GameCode.parse("GO1-E-AAAAAAB"), GameCode.parse("GO1-C-AAAAAAB")
WIN = [*TO_MOVE_35.split(), MOVE_35, *TO_THE_WIN.split()]


def run(code: GameCode, tokens: list[str], budget_s: float = 30.0) -> dict:
    game = replay(code, parse_moves(" ".join(tokens)))
    return analyse(code, tokens, game.score, budget_s=budget_s, clock=time.thread_time)


def positions(code: GameCode, tokens: list[str]) -> list[Game]:
    games = [Game.new(code)]
    for action in parse_moves(" ".join(tokens)):
        games.append(games[-1].apply(action))
    return games


def losing_move(code: GameCode, tokens: list[str]) -> str:
    """A move from the position ``tokens`` reach after which the solver says it can no longer be won."""
    game = positions(code, tokens)[-1]
    for action in game.legal_actions():
        if solve(game.apply(action)).winnable is False:
            return "d" if isinstance(action, Draw) else str(action.column)
    raise AssertionError("every move keeps the win")


def test_the_easy_win_has_no_mistake_and_every_position_is_winnable() -> None:
    a = run(EASY, WIN)
    assert a["complete"] and a["won"] and a["winnable"] is True
    assert (a["par"], a["score"], a["best_removed"], a["removed"]) == (350, 350, 35, 35)
    assert a["mistakes"] == [] and a["inaccuracies"] == [] and a["line"] is None
    assert len(a["moves"]) == len(WIN) == 48
    assert all(m["before"]["winnable"] and m["after"]["winnable"] for m in a["moves"])
    assert a["searches"] < len(WIN) // 2, "a move along the solver's line needs no search"


def test_each_verdict_is_the_solvers_own_on_that_position() -> None:
    """Every position of a game that loses the win at the seeds' move 35, decided on its own by the solver."""
    bad = losing_move(EASY, TO_MOVE_35.split())
    tokens = [*TO_MOVE_35.split(), bad, "d", "d"]
    a = run(EASY, tokens)
    games = positions(EASY, tokens)
    for m, before, after in zip(a["moves"], games[:-1], games[1:], strict=True):
        s_before, s_after = solve(before), solve(after)
        assert (m["before"]["winnable"], m["before"]["best"]) == (s_before.winnable, s_before.best_removed)
        assert (m["after"]["winnable"], m["after"]["best"]) == (s_after.winnable, s_after.best_removed)


def test_the_first_move_that_loses_the_easy_win_is_marked_and_the_line_still_open_wins() -> None:
    bad = losing_move(EASY, TO_MOVE_35.split())
    tokens = [*TO_MOVE_35.split(), bad]
    game = positions(EASY, tokens)[-1]
    while game.status is Status.PLAYING:  # then plays on greedily to the end
        action = game.legal_actions()[0]
        tokens.append("d" if isinstance(action, Draw) else str(action.column))
        game = game.apply(action)
    a = run(EASY, tokens)
    assert a["first_mistake"] == 35 and a["mistakes"] == [35]
    assert a["moves"][34]["mark"] == MISTAKE
    assert a["moves"][34]["before"] == {"winnable": True, "best": 35}
    assert a["moves"][34]["after"]["winnable"] is False
    assert all(m["mark"] in (None, INACCURACY) for m in a["moves"][35:])
    line = a["line"]
    assert line["kind"] == "win" and line["move"] == 35 and line["best"] == 35
    # the line, played from the position before move 35, wins: its last board is the empty tableau
    before = positions(EASY, TO_MOVE_35.split())[-1]
    won = replay(EASY, [*parse_moves(TO_MOVE_35), *parse_moves(" ".join(s["token"] for s in line["steps"]))])
    assert won.status is Status.WON and line["steps"][-1]["board"]["status"] == "won"
    assert line["steps"][-1]["board"]["columns"] == [[]] * 7
    assert before.removed + sum(s["token"] != "d" for s in line["steps"]) == 35
    assert a["par"] == 350 and a["score"] == game.score < 350


def test_the_classic_loss_compares_the_most_cards_any_line_removes_with_the_players() -> None:
    """Under Classic rules the example deal cannot be won: the analysis gives the solver's best count from
    the deal, and the player's (the seeds' opening, then draws to the end of the stock)."""
    tokens = ["d", "5", "2"]
    game = positions(CLASSIC, tokens)[-1]
    while game.stock_count:
        game = game.apply(Draw())
        tokens.append("d")
    a = run(CLASSIC, tokens)
    best = solve(Game.new(CLASSIC))
    assert a["winnable"] is False and best.winnable is False
    assert a["best_removed"] == best.best_removed and a["par"] == best.par
    assert a["removed"] == game.removed < a["best_removed"]
    assert a["mistakes"] == [] and a["first_mistake"] is None
    assert a["inaccuracies"], "drawing the whole stock away loses cards a line would remove"
    first = a["inaccuracies"][0]
    m = a["moves"][first - 1]
    assert m["mark"] == INACCURACY and m["after"]["best"] < m["before"]["best"]
    assert a["line"]["kind"] == "best" and a["line"]["move"] == first
    assert a["line"]["steps"][-1]["board"]["removed"] == m["before"]["best"]


def test_an_undo_is_never_marked_and_takes_back_the_verdict() -> None:
    bad = losing_move(EASY, TO_MOVE_35.split())
    tokens = [*TO_MOVE_35.split(), bad, "u", MOVE_35, *TO_THE_WIN.split()]
    a = run(EASY, tokens)
    assert a["won"] and a["mistakes"] == [35]
    undo = a["moves"][35]
    assert undo["token"] == "u" and undo["mark"] is None and undo["after"]["winnable"] is True


def test_a_budget_that_runs_out_leaves_positions_unknown_and_marks_nothing_next_to_them() -> None:
    ticks = iter(range(10**6))

    def clock() -> float:  # a clock that jumps a second at each reading: the budget is gone at once
        return float(next(ticks))

    a = analyse(EASY, ["d", "5"], 0, budget_s=0.5, clock=clock)
    assert not a["complete"] and a["winnable"] is None and a["par"] is None
    assert all(m["mark"] is None for m in a["moves"])


@pytest.mark.parametrize("tokens", [["9"], ["x"], ["u"]])
def test_a_log_that_does_not_play_is_refused(tokens: list[str]) -> None:
    with pytest.raises(GolfError):
        analyse(EASY, tokens, 0, budget_s=1.0, clock=time.thread_time)


def test_the_boards_show_no_card_of_the_stock_before_it_is_drawn() -> None:
    a = run(EASY, WIN)
    stock = [c.code for c in Game.new(EASY).deal.stock]
    for i, shown in enumerate(a["boards"]):
        drawn = 16 - shown["stock_count"]
        flat = {c for col in shown["columns"] for c in col} | {shown["discard"]}
        assert not flat & set(stock[drawn:]), i
