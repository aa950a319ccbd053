"""The bots' ladder in the pool is the measured one (issue 21.3): each level's rating comes from the openskill
ratings that bot-vs-bot races measured (``policy.MEASURED``, ``bench/bot_ladder.py``), levels the races could
not tell apart share one, and docs/bots.md reports the same figures the code uses."""

from __future__ import annotations

import re
from pathlib import Path

from golfrace.pool import policy
from golfrace.pool.ratings import SCALE

DOCS = Path(__file__).resolve().parents[2] / "docs"


def documented(path: Path, marker: str) -> dict[int, dict[str, str]]:
    """The rows of the first table after ``marker`` in a doc: level → column → cell."""
    text = path.read_text()
    lines = text[text.index(marker) :].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| strength"))
    head = [c.strip() for c in lines[start].strip("|").split("|")]
    rows = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[int(cells[0])] = dict(zip(head, cells, strict=True))
    return rows


def number(cell: str) -> float:
    return float(re.sub(r"[^\d.\-−]", "", cell).replace("−", "-"))


def test_the_pool_rates_each_bot_level_as_the_races_measured_it() -> None:
    assert set(policy.MEASURED) == set(policy.STRENGTHS)
    ladder = policy.merged(policy.MEASURED)
    assert ladder == policy.LADDER
    for level, (mu, _sigma) in policy.MEASURED.items():
        mates = [lv for lv, r in policy.LADDER.items() if r == policy.LADDER[level]]
        if mates == [level]:  # a level the races told apart: its own measured rating
            assert policy.LADDER[level] == round(mu * SCALE)
        else:  # merged with its neighbours: the mean of their mu
            mean = sum(policy.MEASURED[lv][0] for lv in mates) / len(mates)
            assert policy.LADDER[level] == round(mean * SCALE)
    ratings = [policy.LADDER[lv] for lv in policy.STRENGTHS]
    assert ratings == sorted(ratings)  # weakest first, as measured


def test_levels_the_races_could_not_tell_apart_share_a_rating_and_the_pool_seats_the_cheaper() -> None:
    ladder = policy.merged({1: (10.0, 1.0), 2: (20.0, 3.0), 3: (22.0, 3.0), 4: (30.0, 1.0)})
    assert ladder == {1: 600, 2: 1260, 3: 1260, 4: 1800}
    for level in policy.STRENGTHS:
        chosen = policy.strength_for(policy.LADDER[level])
        assert policy.LADDER[chosen] == policy.LADDER[level] and chosen <= level


def test_docs_report_the_ladder_the_code_uses() -> None:
    bots = documented(DOCS / "bots.md", "## The ladder")
    assert set(bots) == set(policy.STRENGTHS)
    for level, row in bots.items():
        mu, sigma = policy.MEASURED[level]
        assert (number(row["mu"]), number(row["sigma"])) == (mu, sigma), level
        assert number(row["pool rating"]) == policy.LADDER[level], level
    pool = documented(DOCS / "pool.md", "**Strength ladder")
    assert {lv: number(row["pool rating"]) for lv, row in pool.items()} == policy.LADDER
