"""The client's pure modules agree with the engine: the code check (client_web/src/game/codes.js) against
GameCode.parse, run by Node on the same inputs. Needs only `node`."""

from __future__ import annotations

import random

import pytest

from golfrace.engine import GameCode
from golfrace.engine.errors import CodeError

from .node import node_json

FIXED = [
    "GO1-E-AAAAAAB",
    "go1-n-aaaaaab",
    " GO1-C-ZZZZZZZ ",
    "GO1-E-AAAAAAB-S",
    "GO1-E-AAAAAAB-SJ2D",
    "GO1-E-AAAAAAB-J3",
    "GO1-E-AAAAAAB-DS",
    "GO1-E-AAAAAAB-",
    "GO1-X-AAAAAAB",
    "GO2-E-AAAAAAB",
    "GO1-E-AAAA",
    "GO1-E-AAAA1AB",
    "GO1-E",
    "",
    "GO1-E-AAAAAAB-S-D",
    "GO1-C-ABCDEFG-J1",
    "GO1-E-ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "go1-c-zzzzzzzzzzzzzzzzzzzzzzzzzz-sj2d",
    "GO1-E-ABCDEFGHIJKLMNOPQRSTUVWXY",
    "GO1-E-ABCDEFGHIJKLMNOPQRSTUVWXYZA",
    "GO1-E-ABCDEFGHIJKLMNOPQRSTUVWXY1",
    "GO1-E-ABCDEFGHIJKLMNOPQRSTUVWXYZ-DS",
]


def inputs() -> list[str]:
    rng = random.Random(6)
    alphabet = "GO1ECNSJD-AZ23 x"
    fuzz = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 18))) for _ in range(300)]
    fuzz += ["GO1-E-" + "".join(rng.choice(alphabet) for _ in range(rng.randint(20, 32))) for _ in range(100)]
    mutated = []
    for _ in range(400):
        text = list(rng.choice(FIXED[:5] + FIXED[16:18]))
        if text:
            text[rng.randrange(len(text))] = rng.choice(alphabet)
        mutated.append("".join(text))
    return FIXED + fuzz + mutated


def test_code_check_mirrors_the_engine() -> None:
    texts = inputs()
    script = (
        "import('./src/game/codes.js').then(m => {"
        "const texts = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(texts.map(t => m.checkCode(t))));})"
    )
    out = node_json(script, texts, timeout=30)
    for text, got in zip(texts, out, strict=True):
        try:
            code = GameCode.parse(text)
        except CodeError as exc:
            assert got == {"ok": False, "part": exc.part}, text
        else:
            assert got == {"ok": True, "code": str(code), "rules": code.rules.value}, text


def test_an_unfinished_code_is_a_prefix_and_a_wrong_one_is_not() -> None:
    """isCodePrefix: every start of a valid code (short or long, any variant, any case) can still become one;
    a text with a wrong part cannot, whatever is typed after it."""
    rng = random.Random(7)
    codes = ["GO1-E-AAAAAAB", "go1-n-aaaaaab", "GO1-C-ZZZZZZZ-SJ2D", "GO1-E-ABCDEFG-J1", "GO1-C-QWERTYU-D"]
    for _ in range(40):
        letters = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(rng.choice([7, 26])))
        variant = rng.choice(["", "-S", "-J1", "-J2", "-D", "-SD", "-SJ1", "-J2D", "-SJ2D"])
        codes.append(f"GO1-{rng.choice('ENC')}-{letters}{variant}")
    for code in codes:
        GameCode.parse(code)  # the engine agrees they are codes
    starts = sorted({code[:n] for code in codes for n in range(len(code) + 1)})
    wrong = [
        "X",
        "GO2",
        "GO1E",
        "GO1-X",
        "GO1--",
        "GO1-E-AAAA1",
        "GO1-E-AAAAAAAA-",
        "GO1-E-" + "A" * 27,
        "GO1-E-" + "A" * 25 + "-",
        "GO1-E-" + "A" * 26 + "-DS",
        "GO1-E-AAAAAAB-J3",
        "GO1-E-AAAAAAB-DS",
        "GO1-E-AAAAAAB-S-D",
        "GO1-E-AAAAAAB-JJ",
        "GO1-E-AAAAAAB-SS",
    ]
    for text in wrong:
        with pytest.raises(CodeError):
            GameCode.parse(text)
    script = (
        "import('./src/game/codes.js').then(m => {"
        "const texts = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(texts.map(t => m.isCodePrefix(t))));})"
    )
    out = node_json(script, starts + wrong, timeout=30)
    got = dict(zip(starts + wrong, out, strict=True))
    assert [t for t in starts if not got[t]] == []
    assert [t for t in wrong if got[t]] == []


def test_seq_numbers_count_up_with_storage_blocked_full_or_fine() -> None:
    """client_web/src/net/seq.js: a page whose storage is missing or throws still sends increasing seqs, and a
    seq the server reports (after a reconnect) is never counted below."""
    script = """
import('./src/net/seq.js').then(m => {
  const map = new Map();
  const fine = { getItem: k => map.get(k) ?? null, setItem: (k, v) => map.set(k, v) };
  const broken = { getItem() { throw new Error('blocked'); }, setItem() { throw new Error('full'); } };
  const out = {
    none: [m.nextSeq(null, 'a'), m.nextSeq(null, 'a'), m.nextSeq(undefined, 'a')],
    broken: [m.nextSeq(broken, 'b'), m.nextSeq(broken, 'b')],
    fine: [m.nextSeq(fine, 'c'), m.nextSeq(fine, 'c')],
  };
  m.seenSeq(fine, 'c', 7);
  out.after_seen = m.nextSeq(fine, 'c');
  m.seenSeq(fine, 'c', 3);
  out.after_lower = m.nextSeq(fine, 'c');
  out.stored = map.get('c');
  process.stdout.write(JSON.stringify(out));
});
"""
    out = node_json(script, timeout=30, flags=("--input-type=module",))
    assert out == {
        "none": [1, 2, 3],
        "broken": [1, 2],
        "fine": [1, 2],
        "after_seen": 8,
        "after_lower": 9,
        "stored": "9",
    }


def test_a_race_is_joined_by_its_link_or_its_id() -> None:
    """client_web/src/net/raceid.js: the shared link, the page's own address, a watch link or the bare id; a
    link only from the page's own site."""
    rid = "rab2cdefghjk"
    texts = {
        rid: rid,
        f"  {rid.upper()} ": rid,
        f"https://golf.example/r/{rid}": rid,
        f"https://golf.example/#/race/{rid}": rid,
        f"https://golf.example/watch/{rid}": rid,
        "hello": None,
        "": None,
        "r123": None,
        "rab2cdefghjl0": None,  # 0 and l are not in the alphabet, and too long
        f"https://golf.example/leaderboards/{rid}": None,
        f"/r/{rid}": None,  # not a whole link
        f"https://example.com/r/{rid}": None,  # another site's link
        f"http://golf.example/r/{rid}": None,  # another scheme: another origin
        f"https://golf.example:8443/#/race/{rid}": None,
    }
    script = (
        "import('./src/net/raceid.js').then(m => {"
        "const texts = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(texts.map(t => m.raceIdFrom(t, 'https://golf.example'))));})"
    )
    out = node_json(script, list(texts), timeout=30)
    assert dict(zip(texts, out, strict=True)) == texts


def test_course_module_mirrors_the_engine() -> None:
    """client_web/src/game/course.js against engine/course.py: the course code check, the nine hole codes (its
    own SHA-256 against hashlib's), the to-par and share texts (through a plain named-field format of the
    catalogs, as i18n.js's)."""
    from golfrace.engine.course import CourseCode, Scorecard, share_text, to_par_text
    from golfrace.engine.i18n import LOCALES, catalog

    rng = random.Random(22)
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    texts = [t.replace("GO1", "GC1", 1) for t in FIXED] + ["GO1-E-AAAAAAB", "GC1", "GC1-"]
    texts += [
        f"GC1-{rng.choice('ECN')}-"
        + "".join(rng.choice(letters) for _ in range(rng.choice((7, 26))))
        + rng.choice(("", "-S", "-J1D", "-SJ2D"))
        for _ in range(60)
    ]
    cards = [[rng.randint(0, 35) for _ in range(9)] for _ in range(20)] + [
        [5] * 9,
        [3, 4, 2, 6, 5, 8, 5, 4, 5],
    ]
    script = (
        "import('./src/game/course.js').then((m) => {"
        "const {texts, cards, locales, catalogs} = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "const checks = texts.map(t => { const c = m.checkCourse(t);"
        " return c.ok ? {ok: true, code: c.code, holes: m.holeCodes(t)} : {ok: false, part: c.part}; });"
        "const shares = {}; for (const loc of locales) { const t = (p, a = {}) =>"
        " p.split('.').reduce((o, k) => o[k], catalogs[loc])"
        ".replace(/\\{(\\w+)\\}/g, (_, k) => String(a[k]));"
        " shares[loc] = cards.map(h => [m.toParText(m.toPar(h), t), m.courseShare('GC1-E-AAAAAAB', h, t)]); }"
        "process.stdout.write(JSON.stringify({checks, shares}));})"
    )
    out = node_json(
        script,
        {
            "texts": texts,
            "cards": cards,
            "locales": list(LOCALES),
            "catalogs": {x: catalog(x) for x in LOCALES},
        },
        timeout=30,
    )
    got = out
    for text, check in zip(texts, got["checks"], strict=True):
        try:
            course = CourseCode.parse(text)
        except CodeError as exc:
            assert check == {"ok": False, "part": exc.part}, text
        else:
            assert check == {"ok": True, "code": str(course), "holes": [str(h) for h in course.holes]}, text
    course = CourseCode.parse("GC1-E-AAAAAAB")
    for loc in LOCALES:
        assert catalog(loc)["ui"]["course"]
        for holes, (to_par, share) in zip(cards, got["shares"][loc], strict=True):
            card = Scorecard(course, tuple(holes))
            assert to_par == to_par_text(card.to_par, loc) and share == share_text(card, loc), (loc, holes)
