"""Passwords: checked against a policy, hashed with argon2id (argon2-cffi), verified off the event loop.

Parameters (``AccountSettings``): time cost 3, 64 MiB, 4 lanes, 16-byte salt, 32-byte hash — argon2-cffi's
``RFC_9106_LOW_MEMORY`` profile, about 50–150 ms a hash on one core. Stored as the PHC string
(``$argon2id$v=19$m=65536,t=3,p=4$…``), so a hash made under older parameters still verifies and is
re-hashed at the next sign-in (``needs_rehash``).

Policy: ``password_min``..``password_max`` characters after NFKC normalisation, not one of the common
passwords in ``common_passwords.txt`` (compared case-insensitively), not the username.
"""

from __future__ import annotations

import asyncio
import unicodedata
from functools import cache
from importlib import resources

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from golfrace.settings.accounts import AccountSettings

from .errors import AccountError

SALT_BYTES = 16
HASH_BYTES = 32


@cache
def common_passwords() -> frozenset[str]:
    text = resources.files(__package__).joinpath("common_passwords.txt").read_text("utf-8")
    lines = (line.strip() for line in text.splitlines())
    return frozenset(line.lower() for line in lines if line and not line.startswith("#"))


def normalise(password: str) -> str:
    return unicodedata.normalize("NFKC", password)


def check_password(password: object, username: str | None, settings: AccountSettings) -> str:
    """The normalised password, or ``bad_password`` with ``params.reason``: ``length`` (with ``min``,
    ``max``), ``common`` or ``username``. The message never repeats the password."""
    if not isinstance(password, str):
        raise AccountError("bad_password", "a password is text", reason="length")
    password = normalise(password)
    lo, hi = settings.password_min, settings.password_max
    if not lo <= len(password) <= hi:
        raise AccountError(
            "bad_password", f"a password has {lo} to {hi} characters", reason="length", min=lo, max=hi
        )
    if password.lower() in common_passwords():
        raise AccountError("bad_password", "this password is too common", reason="common")
    if username is not None and password.lower() == username.lower():
        raise AccountError("bad_password", "a password is not the username", reason="username")
    return password


class Passwords:
    """Hashing and verification, at most ``hash_concurrency`` at once, in worker threads."""

    def __init__(self, settings: AccountSettings) -> None:
        self.hasher = PasswordHasher(
            time_cost=settings.password_time_cost,
            memory_cost=settings.password_memory_kib,
            parallelism=settings.password_parallelism,
            hash_len=HASH_BYTES,
            salt_len=SALT_BYTES,
            type=Type.ID,
        )
        self._slots = asyncio.Semaphore(settings.hash_concurrency)
        self._dummy: str | None = None

    async def warm(self) -> None:
        """Make the dummy hash now, so that the first unknown name is not answered more slowly."""
        if self._dummy is None:
            self._dummy = await self.hash("not a password of anyone")

    async def hash(self, password: str) -> str:
        async with self._slots:
            return await asyncio.to_thread(self.hasher.hash, password)

    async def verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` matches ``stored``. With ``stored`` None (no such user, or an account
        without a password) a dummy hash is checked, so the answer takes as long as for a wrong password."""
        if stored is None:
            await self.warm()
            stored = self._dummy or ""
            password = password + "\x00"  # never matches
        async with self._slots:
            return await asyncio.to_thread(self._verify, stored, password)

    def _verify(self, stored: str, password: str) -> bool:
        try:
            return bool(self.hasher.verify(stored, password))
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, stored: str) -> bool:
        try:
            return bool(self.hasher.check_needs_rehash(stored))
        except InvalidHashError:
            return True
