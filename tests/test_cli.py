"""The ``golfrace`` command's engine subcommands: exact output formats and clean failures."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from golfrace.cli import main

EXAMPLE_DEAL = {
    "code": "GO1-E-AAAAAAB",
    "rules": "easy",
    "columns": [
        ["6C", "5S", "QS", "TS", "6H"],
        ["2S", "KC", "4S", "2C", "8C"],
        ["TC", "AH", "2D", "5D", "JS"],
        ["3D", "QH", "AS", "KD", "4C"],
        ["JH", "3C", "7D", "8H", "9C"],
        ["TH", "4H", "7H", "7C", "8D"],
        ["3S", "7S", "3H", "9S", "5C"],
    ],
    "discard": "AC",
    "stock": ["8S", "6D", "9H", "KS", "TD", "KH", "JD", "4D", "9D", "QD", "JC", "AD", "2H", "5H", "6S", "QC"],
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_deal_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "deal", "go1-n-aaaaaab", "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data == EXAMPLE_DEAL
    assert list(data) == ["code", "rules", "columns", "discard", "stock"]
    assert out.count("\n") == 1  # one JSON object on one line


def test_deal_classic_and_variant(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "deal", "GO1-C-AAAAAAB", "--json")
    assert json.loads(out) == EXAMPLE_DEAL | {"code": "GO1-C-AAAAAAB", "rules": "classic"}
    _, out, _ = run(capsys, "deal", "GO1-E-AAAAAAB-D", "--json")
    data = json.loads(out)
    assert data["discard"] is None and data["stock"] == ["AC", *EXAMPLE_DEAL["stock"]]  # type: ignore[misc]


def test_deal_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "deal", "GO1-E-AAAAAAB")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "GO1-E-AAAAAAB (easy)"
    assert lines[1].split() == ["1:", "6C", "5S", "QS", "TS", "6H"]
    assert (
        "discard: AC" in lines[-1] and "stock: 8S 6D 9H KS TD KH JD 4D 9D QD JC AD 2H 5H 6S QC" in lines[-1]
    )


def test_play_json_opening(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "play", "GO1-E-AAAAAAB", "--moves", "1 d 5 2 1:4", "--json", "--lang", "ro")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert list(data) == [
        "code",
        "rules",
        "columns",
        "discard",
        "stock_count",
        "score",
        "moves",
        "status",
        "refusals",
    ]
    assert data["columns"][1] == ["2S", "KC", "4S", "2C"] and data["columns"][4] == ["JH", "3C", "7D", "8H"]
    assert (data["discard"], data["stock_count"], data["score"], data["moves"], data["status"]) == (
        "8C",
        15,
        20,
        3,
        "playing",
    )
    assert data["refusals"] == [
        {
            "index": 0,
            "move": "1",
            "reason": "not_adjacent",
            "message": "Trebuie să aibă o valoare cu o treaptă mai mare sau mai mică",
        },
        {"index": 4, "move": "1:4", "reason": "blocked", "message": "Această carte este blocată"},
    ]
    assert list(data["refusals"][0]) == ["index", "move", "reason", "message"]


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("en", "There is nothing to undo"),
        ("he", "אין מהלך לביטול"),
        ("ms", "Tiada langkah untuk dibuat asal"),
    ],
)
def test_play_json_message_language(capsys: pytest.CaptureFixture[str], lang: str, message: str) -> None:
    args = ["play", "GO1-C-AAAAAAB", "--moves", "u", "--json"] + (["--lang", lang] if lang != "en" else [])
    _, out, _ = run(capsys, *args)
    data = json.loads(out)
    assert data["rules"] == "classic"
    assert data["refusals"] == [{"index": 0, "move": "u", "reason": "nothing_to_undo", "message": message}]


def test_play_json_won_and_stuck(capsys: pytest.CaptureFixture[str]) -> None:
    win = "d 5 2 d 7 4 d 5 5 6 6 1 6 d d 3 1 7 d 1 4 4 2 5 2 3 d 4 d 7 3 d d 2 3 2 4 6 1 1 7 d 3 5 6 d d 7 d"
    _, out, _ = run(capsys, "play", "GO1-E-AAAAAAB", "--moves", win, "--json")
    data = json.loads(out)
    assert (data["status"], data["score"], data["moves"], data["stock_count"]) == ("won", 350, 48, 3)
    assert data["columns"] == [[]] * 7
    assert data["refusals"] == [
        {"index": 48, "move": "d", "reason": "game_over", "message": "The game is over"}
    ]
    stuck = "5 d 5 d 3 2 2 d d 1 d 1 4 d d 1 d 2 2 2 d d d 4 d d d d 3 6 1 1 d"
    _, out, _ = run(capsys, "play", "GO1-E-AAAAALR", "--moves", stuck, "--json")
    data = json.loads(out)
    assert (data["status"], data["score"], data["stock_count"]) == ("stuck", 0, 0)


def test_play_text(capsys: pytest.CaptureFixture[str]) -> None:
    stuck = "5 d 5 d 3 2 2 d d 1 d 1 4 d d 1 d 2 2 2 d d d 4 d d d d 3 6 1 1 d"
    code, out, _ = run(capsys, "play", "GO1-E-AAAAALR", "--moves", stuck + " 1", "--lang", "ms")
    assert code == 0
    assert out.splitlines()[0].startswith("GO1-E-AAAAALR (easy)  score 0  moves 33")
    assert "Tiada lagi langkah yang boleh dibuat" in out  # the stuck message in the chosen language
    assert "refused move 34 (1): Permainan sudah tamat" in out


@pytest.mark.parametrize(
    ("lang", "first"),
    [
        ("ro", "Teanc de tragere: 15 cărți; teanc de decartare: 8 de treflă. Coloana 1: 6 de treflă,"),
        ("he", "קופה: 15 קלפים; ערימת השלכה: 8 תלתן. טור 1: 6 תלתן,"),
        ("ms", "Timbunan cabutan: 15 kad; timbunan buangan: 8 kelawar. Lajur 1: 6 kelawar,"),
        ("en", "Stock: 15 cards; discard: 8 of clubs. Column 1: 6 of clubs,"),
    ],
)
def test_describe(capsys: pytest.CaptureFixture[str], lang: str, first: str) -> None:
    args = ["describe", "GO1-E-AAAAAAB", "--moves", "d 5 2"] + (["--lang", lang] if lang != "en" else [])
    code, out, err = run(capsys, *args)
    assert (code, err) == (0, "")
    assert out.startswith(first) and out.endswith(".\n") and out.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["deal", "GO2-E-AAAAAAB"], "bad_code"),
        (["deal", "GO1-X-AAAAAAB", "--json"], "rule letter"),
        (["play", "GO1-E-AAAAAA", "--moves", "d"], "7 letters"),
        (["describe", "GO1-E-AAAA1AB"], "only letters"),
        (["play", "GO1-E-AAAAAAB", "--moves", "d x"], "bad_move"),
        (["play", "GO1-E-AAAAAAB", "--moves", "9"], "column must be 1–7"),
        (["describe", "GO1-E-AAAAAAB", "--moves", "1:7"], "row must be 1–5"),
        (["play", "GO1-E-AAAAAAB", "--lang", "fr"], "invalid choice: 'fr'"),
        (["describe", "GO1-E-AAAAAAB", "--lang", "xx"], "invalid choice"),
        (["deal"], "required"),
        (["nosuch"], "invalid choice"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and fragment in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["deal", "not-a-code"],
        ["play", "GO1-E-AAAAAAB", "--moves", "²"],
        ["describe", "GO1-E-AAAAAAB", "--lang", "de"],
    ],
)
def test_console_script_never_prints_a_traceback(argv: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "golfrace", *argv], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr


def test_console_script_deal_json() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "golfrace", "deal", "GO1-E-AAAAAAB", "--json"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=True,
    )
    assert json.loads(proc.stdout) == EXAMPLE_DEAL
