"""The nine-deal course: Golf's traditional scoring, one code for nine deals (docs/course.md).

A course code reads ``GC1-<R>-<7 or 26 letters>[-<variants>]``: the same rule letter, letters and variant
part as a game code (``codes.py``), under its own prefix. Hole ``n`` (1 to 9) is the game code with the
course's rules and variants and the seed

    SHA-256("golfrace-course-v1" || letters as 1 byte || course seed as 16 bytes || n as 1 byte)

read big-endian, modulo the space: 26**7 for a seven-letter course (casual holes; letters = 7) and 26**26
for a long course (long holes, as ranked play deals; letters = 26). The letter count keeps a casual course
and a long course of the same number apart. As in a game code, the rule letter does not enter the deal.
SHA-256 is one-way: a hole's code, once shown, tells nothing of the course code or of the other holes;
whoever knows the course code knows every hole, so a ranked course keeps it hidden until it is over.

A hole's strokes are the cards left on the tableau when its deal ends (0 for a cleared table, at most
35); the course's strokes are their sum over the nine holes; par is 5 a hole, 45 a course; lower is
better. Pure: no I/O, no clock, no randomness of its own (``random_course`` takes its entropy from
``secrets`` as ``codes.random_code`` does).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .codes import LONG_SEED_LETTERS, LONG_SEED_SPACE, PREFIX, SEED_LETTERS, SEED_SPACE, GameCode
from .deal import TABLEAU
from .errors import CodeError, GolfError
from .game import Game, Status
from .i18n import catalog
from .rules import NO_VARIANTS, Rules, Variants

COURSE_PREFIX = "GC1"
HOLES = 9
HOLE_PAR = 5
PAR = HOLES * HOLE_PAR
"""45: the seeds' traditional par for nine deals."""
MAX_STROKES = TABLEAU
"""A hole's worst: every card of the tableau left (35)."""
COURSE_DOMAIN = b"golfrace-course-v1"
MINUS = "\u2212"
"""The typographic minus of "−3 under par" (not a hyphen)."""


class CourseError(GolfError):
    """A scorecard was asked something its course does not allow (a tenth hole, a hole still playing)."""

    code = "bad_course"


@dataclass(frozen=True, slots=True)
class CourseCode:
    """One code for nine deals; ``hole(n)`` derives deal ``n``'s game code."""

    rules: Rules
    seed: int
    variants: Variants = NO_VARIANTS
    long: bool = False

    def __post_init__(self) -> None:
        # the same bounds as a game code's seed (GameCode raises the same CodeError)
        GameCode(self.rules, self.seed, self.variants, self.long)

    @property
    def _as_game(self) -> GameCode:
        return GameCode(self.rules, self.seed, self.variants, self.long)

    def __str__(self) -> str:
        return COURSE_PREFIX + str(self._as_game)[len(PREFIX) :]

    def hole(self, n: int) -> GameCode:
        """The game code of hole ``n`` (1-based)."""
        if not 1 <= n <= HOLES:
            raise CourseError(f"a course has holes 1 to {HOLES}, got {n}", hole=n)
        letters = LONG_SEED_LETTERS if self.long else SEED_LETTERS
        block = COURSE_DOMAIN + bytes([letters]) + self.seed.to_bytes(16, "big") + bytes([n])
        digest = hashlib.sha256(block).digest()
        space = LONG_SEED_SPACE if self.long else SEED_SPACE
        return GameCode(self.rules, int.from_bytes(digest, "big") % space, self.variants, self.long)

    @property
    def holes(self) -> tuple[GameCode, ...]:
        return tuple(self.hole(n) for n in range(1, HOLES + 1))

    @classmethod
    def parse(cls, text: str) -> CourseCode:
        """Read a course code; case and surrounding spaces are ignored. Errors name the part that is
        wrong, as a game code's do (``CodeError`` with ``part``)."""
        if not isinstance(text, str):
            raise CodeError("a course code must be text", part="prefix")
        raw = text.strip().upper()
        head, _, rest = raw.partition("-")
        if head != COURSE_PREFIX or not rest:
            raise CodeError(
                f"a course code starts with {COURSE_PREFIX}- (version 1), got {text.strip()[:12]!r}",
                part="prefix",
            )
        try:
            game = GameCode.parse(f"{PREFIX}-{rest}")
        except CodeError as e:
            raise CodeError(f"course code: {e.message}", part=e.part) from None
        return cls(game.rules, game.seed, game.variants, game.long)


def course_from_entropy(
    entropy: bytes, rules: Rules = Rules.EASY, variants: Variants = NO_VARIANTS
) -> CourseCode:
    """A long (ranked) course code for at least 32 random bytes (an HMAC-SHA256, say), as
    ``codes.long_code_from_entropy``."""
    if len(entropy) < 32:
        raise ValueError(f"a course code needs at least 32 bytes of entropy, got {len(entropy)}")
    return CourseCode(rules, int.from_bytes(entropy, "big") % LONG_SEED_SPACE, variants, long=True)


def random_course(
    rules: Rules = Rules.EASY, variants: Variants = NO_VARIANTS, long: bool = False
) -> CourseCode:
    """A fresh random course code from the operating system's entropy (casual, or long for ranked)."""
    import secrets

    return CourseCode(rules, secrets.randbelow(LONG_SEED_SPACE if long else SEED_SPACE), variants, long)


def strokes(game: Game, stopped: bool = False) -> int:
    """A finished hole's strokes: the cards left on the tableau. A game still playing has none, unless it
    was ``stopped`` (resigned, out of time): then the cards it left count."""
    if game.status is Status.PLAYING and not stopped:
        raise CourseError("a hole still being played has no strokes yet", status=game.status.value)
    return TABLEAU - game.removed


@dataclass(frozen=True, slots=True)
class Scorecard:
    """A course's card: the strokes of the holes played so far, in order."""

    course: CourseCode
    holes: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if len(self.holes) > HOLES:
            raise CourseError(f"a course has {HOLES} holes, got {len(self.holes)}", holes=len(self.holes))
        for s in self.holes:
            if not 0 <= s <= MAX_STROKES:
                raise CourseError(f"a hole's strokes are 0 to {MAX_STROKES}, got {s}", strokes=s)

    def record(self, hole_strokes: int) -> Scorecard:
        """The card with the next hole's strokes added."""
        if self.finished:
            raise CourseError("the course is over: all nine holes are played", holes=HOLES)
        return Scorecard(self.course, (*self.holes, hole_strokes))

    def record_game(self, game: Game, stopped: bool = False) -> Scorecard:
        """The card with ``game`` as the next hole; the game must be that hole's deal."""
        expected = self.next_hole
        if expected is None or game.code != expected:
            raise CourseError(
                f"this game is not hole {len(self.holes) + 1} of {self.course}", code=str(game.code)
            )
        return self.record(strokes(game, stopped))

    @property
    def played(self) -> int:
        return len(self.holes)

    @property
    def finished(self) -> bool:
        return len(self.holes) == HOLES

    @property
    def next_hole(self) -> GameCode | None:
        return None if self.finished else self.course.hole(len(self.holes) + 1)

    @property
    def total(self) -> int:
        return sum(self.holes)

    @property
    def running(self) -> tuple[int, ...]:
        """The total after each hole played (a scorecard's "out" column, hole by hole)."""
        out, acc = [], 0
        for s in self.holes:
            acc += s
            out.append(acc)
        return tuple(out)

    @property
    def to_par(self) -> int:
        """Strokes against the par of the holes played: negative is under par (better)."""
        return self.total - HOLE_PAR * len(self.holes)


def to_par_text(to_par: int, locale: str) -> str:
    """ "−3 under par", "+2 over par" or "level par", in ``locale``."""
    texts = catalog(locale)["ui"]["course"]["to_par"]
    if to_par < 0:
        return str(texts["under"]).format(n=f"{MINUS}{-to_par}")
    if to_par > 0:
        return str(texts["over"]).format(n=f"+{to_par}")
    return str(texts["level"])


def share_text(card: Scorecard, locale: str) -> str:
    """The text to share a finished course: its code, strokes against par, and the nine holes."""
    if not card.finished:
        raise CourseError("only a finished course is shared", holes=card.played)
    texts = catalog(locale)["ui"]["course"]
    return str(texts["share"]).format(
        code=str(card.course),
        strokes=card.total,
        par=PAR,
        to_par=to_par_text(card.to_par, locale),
        holes=" ".join(str(s) for s in card.holes),
    )


def daily_share_text(day: str, holes: tuple[int, ...] | list[int], locale: str) -> str:
    """The spoiler-free text of a finished daily course (the weekend's): its day, strokes against par and
    the nine holes, never its code (it stays hidden until the day is over)."""
    card = tuple(holes)
    if len(card) != HOLES:
        raise CourseError("only a finished course is shared", holes=len(card))
    total = sum(card)
    texts = catalog(locale)["ui"]["course"]
    return str(texts["daily_share"]).format(
        day=day,
        strokes=total,
        par=PAR,
        to_par=to_par_text(total - PAR, locale),
        holes=" ".join(str(s) for s in card),
    )


__all__ = [
    "COURSE_PREFIX",
    "HOLES",
    "HOLE_PAR",
    "PAR",
    "CourseCode",
    "CourseError",
    "Scorecard",
    "course_from_entropy",
    "daily_share_text",
    "random_course",
    "share_text",
    "strokes",
    "to_par_text",
]
