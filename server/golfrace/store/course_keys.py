"""Every Redis key of the course. ``P`` is a player id, ``C`` a canonical course code, ``D`` a day
(yyyy-mm-dd); one hash per attempt, each in one Cluster slot (the ``{…}`` tag), and every script touches one.

- ``course:{P}:C``      hash with a TTL: ``P``'s attempt at the course ``C``: ``played`` (holes recorded),
                        ``h<n>`` → hole ``n``'s result JSON (``game``, ``strokes``, ``elapsed``, ``moves``,
                        ``hinted``)
- ``dcourse:{D|P}``     hash with a TTL: ``P``'s attempt at the daily course of ``D``: as above, and
                        ``d<n>`` → the game id the server dealt for hole ``n`` (claimed once, by ``DEAL``)
- ``crace:{R}``         string with a TTL: the course race ``R``, a JSON record (``racing.CourseRace``),
                        written by ``race_book.CAS`` only

The boards are the races' leaderboards (``races.leaderboard.course_board``, ``daily_course_board``).
"""

from __future__ import annotations


def attempt(player: str, course: str) -> str:
    return f"course:{{{player}}}:{course}"


def daily_attempt(day: str, player: str) -> str:
    return f"dcourse:{{{day}|{player}}}"


def course_race(race_id: str) -> str:
    return f"crace:{{{race_id}}}"
