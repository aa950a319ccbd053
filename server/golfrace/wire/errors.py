"""The closed set of error codes the server sends (websocket ``error``/``refused`` and HTTP error bodies), and
``ProtocolError``, the error a handler raises to answer a client message with one of them.

Every error Golf Race raises on purpose descends from ``engine.errors.GolfError``; every code here has a text
in each catalog (``ui.errors.<code>``), which the clients show instead of the server's English ``message``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from redis.exceptions import OutOfMemoryError

from golfrace.engine.errors import GolfError


class ErrorCode(StrEnum):
    """Every code of an ``error`` message or an HTTP error body; documented in docs/protocol.md."""

    # the wire
    BAD_FRAME = "bad_frame"
    TOO_BIG = "too_big"
    BAD_TYPE = "bad_type"
    BAD_FIELD = "bad_field"
    NO_HELLO = "no_hello"
    BAD_TOKEN = "bad_token"
    BAD_CODE = "bad_code"
    NO_GAME = "no_game"
    NOT_PLAYER = "not_player"
    NOT_OPEN = "not_open"
    STALE_SEQ = "stale_seq"
    TOO_MANY_GAMES = "too_many_games"
    RATE_LIMITED = "rate_limited"
    BUSY = "busy"
    UNAVAILABLE = "unavailable"
    STORAGE_FULL = "storage_full"
    INTERNAL = "internal"
    # races, leaderboards, the daily challenge, replays (raised as races.errors.RaceError)
    RACE_NOT_FOUND = "race_not_found"
    RACE_FULL = "race_full"
    RACE_STARTED = "race_started"
    NOT_HOST = "not_host"
    NOT_RACER = "not_racer"
    RACE_NOT_STARTED = "race_not_started"
    RACE_OVER = "race_over"
    GAME_ENDED = "game_ended"
    UNDO_DISABLED = "undo_disabled"
    TOO_MANY_MOVES = "too_many_moves"
    RACE_NOT_FINISHED = "race_not_finished"
    OWN_RACE = "own_race"
    BAD_OPTION = "bad_option"
    GAME_NOT_FOUND = "game_not_found"
    GAME_NOT_ENDED = "game_not_ended"
    CODE_HIDDEN = "code_hidden"
    REPLAY_MISMATCH = "replay_mismatch"
    BAD_DATE = "bad_date"
    NO_DAILY = "no_daily"
    ACCOUNT_REQUIRED = "account_required"
    # friends (raised as friends.errors.FriendError)
    NO_SUCH_PLAYER = "no_such_player"
    OWN_ACCOUNT = "own_account"
    TOO_MANY_FRIENDS = "too_many_friends"
    NOT_FRIEND = "not_friend"
    FRIEND_OFFLINE = "friend_offline"
    CHALLENGE_GONE = "challenge_gone"
    # the nine-deal course (HTTP /api/courses/…, /api/course/daily…, raised as course.errors.CourseRefusal)
    WRONG_HOLE = "wrong_hole"
    HOLE_NOT_OVER = "hole_not_over"
    HOLE_OUT_OF_ORDER = "hole_out_of_order"
    NOT_WEEKEND = "not_weekend"
    # hints
    HINT_BUSY = "hint_busy"
    ANALYSIS_BUSY = "analysis_busy"
    # accounts (HTTP /api/account/…, raised as accounts.errors.AccountError; texts in account.errors)
    BAD_REQUEST = "bad_request"
    BAD_USERNAME = "bad_username"
    BAD_PASSWORD = "bad_password"
    BAD_DISPLAY_NAME = "bad_display_name"
    USERNAME_TAKEN = "username_taken"
    BAD_CREDENTIALS = "bad_credentials"
    NOT_SIGNED_IN = "not_signed_in"
    REAUTH_REQUIRED = "reauth_required"
    BAD_PASSKEY = "bad_passkey"
    PASSKEY_NEEDS_DOMAIN = "passkey_needs_domain"
    BAD_CHALLENGE = "bad_challenge"
    TOO_MANY_PASSKEYS = "too_many_passkeys"
    TOO_MANY_ATTEMPTS = "too_many_attempts"
    TOO_MANY_SIGNUPS = "too_many_signups"
    RENAME_TOO_SOON = "rename_too_soon"
    BAD_ORIGIN = "bad_origin"
    ALREADY_SIGNED_IN = "already_signed_in"
    # HTTP only
    BAD_LOCALE = "bad_locale"
    NOT_FOUND = "not_found"
    FORBIDDEN = "forbidden"
    BAD_METHOD = "bad_method"


class ProtocolError(GolfError):
    """A client message we cannot act on; becomes an ``error`` message with ``code`` (one of ``ErrorCode``;
    another code is a bug of the server and raises ``ValueError`` at once)."""

    code = "protocol_error"

    def __init__(self, code: str, message: str, ref: Any = None, **params: Any) -> None:
        super().__init__(message, **params)
        self.code = ErrorCode(code).value
        self.ref = ref
        self.rid: str | None = None
        """The request id of the message it answers (set by the dispatcher, echoed in the message)."""

    def to_message(self) -> dict[str, Any]:
        msg: dict[str, Any] = {"t": "error", "code": self.code, "message": self.message}
        if self.ref is not None:
            msg["ref"] = self.ref
        if self.params:
            msg["params"] = self.params
        return msg


def storage_full(exc: BaseException) -> bool:
    """Whether a Redis error says that Redis is at its ``maxmemory`` (``OOM``: it runs ``noeviction``, so a
    write that needs memory is refused and nothing is evicted). The request is answered ``storage_full``:
    it did not take effect."""
    while exc is not None:
        if isinstance(exc, OutOfMemoryError) or "OOM command not allowed" in str(exc):
            return True
        exc = exc.__cause__  # type: ignore[assignment]
    return False


def cause(exc: BaseException) -> str:
    """One line for a log: the exception's type and text, then what it came from (``raise … from``), so a
    timeout without text of its own or a wrapped connection error still says what happened."""
    parts: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(parts) < 4:
        seen.add(id(current))
        text = str(current)
        parts.append(f"{type(current).__name__}: {text}" if text else type(current).__name__)
        current = current.__cause__ or current.__context__
    return " <- ".join(parts)
