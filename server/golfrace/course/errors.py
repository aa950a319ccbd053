"""The course's refusals: one error of the one root, each with a stable code of ``wire.errors.ErrorCode``."""

from __future__ import annotations

from ..engine.errors import GolfError


class CourseRefusal(GolfError):
    """A course request the stored games or the course's rules refuse. ``code`` is one of
    ``COURSE_ERROR_CODES``; ``status`` its HTTP status."""

    def __init__(self, code: str, message: str, **params: object) -> None:
        super().__init__(message, **params)
        self.code = code

    @property
    def status(self) -> int:
        return HTTP_STATUS[self.code]


HTTP_STATUS = {
    "bad_code": 400,  # not a course code
    "bad_request": 400,  # not a JSON request
    "bad_option": 400,  # a hole outside 1..9, a game id that is no id
    "bad_date": 400,  # a day that is not yyyy-mm-dd, or still to come
    "bad_token": 401,  # no caller: a token (or an account's session) is needed
    "account_required": 403,  # the daily course deals its holes to accounts only (fair play 19.1)
    "not_player": 403,  # the game is another player's
    "game_not_found": 404,  # no such solo game (a forged id, a race seat, or it expired)
    "wrong_hole": 409,  # the game is not the deal of that hole of the course
    "hole_not_over": 409,  # the game is still being played
    "hole_out_of_order": 409,  # the holes before it are not recorded (or that hole holds another game)
    "not_weekend": 409,  # the daily course is played on Saturdays and Sundays (UTC)
    "code_hidden": 409,  # the daily course's codes, while its day (and grace) is on
    "race_not_found": 404,  # no such course race (or it expired)
    "race_full": 409,  # every seat of the course race is taken
    "race_started": 409,  # a course race is joined and started in its lobby only
    "race_not_started": 409,  # its holes are dealt once the host started it
    "race_over": 409,  # the caller's course in the race is over (played or resigned)
    "not_host": 403,  # only the host starts a course race
    "not_racer": 403,  # the caller has no seat in the course race
    "rate_limited": 429,  # too many new course races (or starts) from the caller's network
    "unavailable": 503,  # the race's record stayed too busy to write
}
COURSE_ERROR_CODES = tuple(HTTP_STATUS)
