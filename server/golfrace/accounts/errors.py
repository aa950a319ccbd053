"""Refusals of the account endpoints: a stable code, an English message for logs, an HTTP status."""

from __future__ import annotations

from typing import Any

from ..engine.errors import GolfError

STATUS = {
    "bad_request": 400,
    "bad_username": 400,
    "bad_password": 400,
    "bad_display_name": 400,
    "username_taken": 409,
    "bad_credentials": 401,
    "not_signed_in": 401,
    "reauth_required": 401,
    "bad_passkey": 400,
    "bad_challenge": 400,
    "too_many_passkeys": 409,
    "too_many_attempts": 429,
    "too_many_signups": 429,
    "rename_too_soon": 429,
    "bad_origin": 403,
    "passkey_needs_domain": 400,
    "already_signed_in": 409,
    "unavailable": 503,
    "storage_full": 503,
}


class AccountError(GolfError):
    """``code`` is one of ``STATUS``; ``params`` go to the client (never a secret)."""

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message, **params)
        self.code = code
        self.message = message
        self.params = params

    @property
    def status(self) -> int:
        return STATUS.get(self.code, 400)

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": self.code, "message": self.message}
        if self.params:
            out["params"] = self.params
        return out
