"""The weekend's daily course: on Saturdays and Sundays (UTC), one long course code a day, the same for
everyone, derived from the server secret as the daily's code is (``races/daily.py``):

    course_from_entropy(HMAC-SHA256(secret, "golfrace-daily-course:<yyyy-mm-dd>"))

so nobody without the secret can compute it, and its nine holes are long codes (ranked play's). Fair play
(hidden codes, 11.2 and 19.1): the course code and its holes' codes are public only once the day and its
grace are over (``races.daily.code_public_at``); until then the server deals each hole to an account's
attempt as a sealed game (``wire.views.sealed``: no frame carries its code; the stock never leaves the
server). Pure.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import date

from ..engine.course import CourseCode, course_from_entropy

LABEL = "golfrace-daily-course"
WEEKEND = (5, 6)
"""Saturday and Sunday (``date.weekday``)."""


def is_weekend(day: date) -> bool:
    return day.weekday() in WEEKEND


def daily_course(day: date, secret: bytes) -> CourseCode:
    """The daily course of ``day`` (a weekend day, or any day: only weekends are played)."""
    mac = hmac.new(secret, f"{LABEL}:{day.isoformat()}".encode(), hashlib.sha256).digest()
    return course_from_entropy(mac)
